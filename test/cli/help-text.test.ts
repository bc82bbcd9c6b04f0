import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { HELP_WIDTH, usageLines, wrapWords } from '../../src/cli/help-text.ts'

const words = Array.from({ length: 40 }, (_, index) => `word${index}`)

describe('wrapWords', () => {
  test('fills lines up to the help width and no further, keeping every word whole and in order', () => {
    const lines = wrapWords(words, '    ').split('\n')
    assert.ok(lines.length > 1)
    assert.ok(lines.every((line) => line.length <= HELP_WIDTH), lines.join('\n'))
    // Filled: the next line's first word would not have fitted on the line before it.
    for (let i = 1; i < lines.length; i++) assert.ok((lines[i - 1] as string).length + 1 + (lines[i] as string).trim().split(' ')[0]!.length > HELP_WIDTH)
    assert.deepEqual(lines.flatMap((line) => line.trim().split(' ')), words)
  })

  test('starts the first line with its own prefix and the others with the indent', () => {
    const lines = wrapWords(words, '  ', '> ').split('\n')
    assert.ok(lines[0]?.startsWith('> word0 '))
    assert.ok(lines.slice(1).every((line) => /^ {2}word/.test(line)), lines.join('\n'))
  })

  test('puts a word longer than the room on a line of its own rather than splitting it', () => {
    const long = 'x'.repeat(HELP_WIDTH)
    assert.deepEqual(wrapWords(['a', long, 'b'], '').split('\n'), ['a', long, 'b'])
  })
})

describe('usageLines', () => {
  test('continues a long usage under its first argument', () => {
    const lines = usageLines('demo', words.slice(0, 20).map((word) => `[--${word} <value>]`)).split('\n')
    assert.ok(lines.length > 1)
    assert.ok(lines[0]?.startsWith('usage: feast-authz demo [--word0 <value>] '))
    const column = 'usage: feast-authz demo '.length
    assert.ok(lines.slice(1).every((line) => line.startsWith(`${' '.repeat(column)}[--word`)), lines.join('\n'))
  })
})
