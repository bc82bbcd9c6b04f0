import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { parse } from 'yaml'
import { yamlText } from '../../src/operator/yaml-text.ts'
import { terminalControls } from '../helpers/terminal.ts'

describe('yamlText', () => {
  test('gives back every string, controls, separators and bidi marks included, with none of them raw', () => {
    const odd = ['\u0000', '\u0007', '\r', '\u001b', '\u007f', '\u0085', '\u009b', '\u061c', '\u200e', '\u2028', '\u2029', '\u202e', '\u2066']
    const value = { plain: 'café', multi: 'one\ntwo', tabbed: 'a\tb', ...Object.fromEntries(odd.map((char, i) => [`odd${i}`, `x${char}y`])), 'key\u202e': 'v' }
    const text = yamlText(value)
    assert.deepEqual(parse(text), value)
    assert.deepEqual(terminalControls(text), [])
    assert.doesNotMatch(text, /[\u2028\u2029\u0085]/)
  })

  test('leaves ordinary strings as plain scalars', () => {
    assert.equal(yamlText({ name: 'feast-reader', note: 'café' }), 'name: feast-reader\nnote: café\n')
  })
})
