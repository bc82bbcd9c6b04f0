/* eslint-disable no-template-curly-in-string -- ${NAME} in plain strings is feature_store.yaml syntax under test, not a template */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { expandEnvReferences } from '../../src/config/env-references.ts'

// Python's os.path.expandvars, which Feast runs on feature_store.yaml: each case is what it answers.
const expand = (text: string, env: NodeJS.ProcessEnv): string => expandEnvReferences(text, env).text

describe('$NAME and ${NAME} references, replaced as Feast replaces them', () => {
  test('$NAME and ${NAME} are replaced by the variable\'s value', () => {
    assert.equal(expand('a: $A\nb: ${B}\n', { A: 'one', B: 'two' }), 'a: one\nb: two\n')
  })

  test('a name is ASCII letters, digits and _, so $A.b is A followed by .b', () => {
    assert.equal(expand('$A.b $A_1x $1', { A: 'x', A_1x: 'y', 1: 'z' }), 'x.b y z')
  })

  test('a variable that is not set leaves its reference as written, and where it starts is kept', () => {
    const expanded = expandEnvReferences('client_secret: ${MISSING} and $MISSING $SET', { SET: 'x' })
    assert.equal(expanded.text, 'client_secret: ${MISSING} and $MISSING x')
    assert.deepEqual(expanded.unset, [15, 30])
  })

  test('a variable set to the empty string is replaced by nothing', () => {
    assert.equal(expand('x: "${EMPTY}"', { EMPTY: '' }), 'x: ""')
  })

  test('${...} names everything up to the next }, with no defaults or other syntax', () => {
    assert.equal(expand('${X:-fallback} ${A B}', { 'X:-fallback': 'odd', 'A B': 'spaced', X: 'not used' }), 'odd spaced')
  })

  test('an unclosed ${, a lone $ and $$ are left as written', () => {
    assert.equal(expand('${A $ $$ cost: 5$', { A: 'x' }), '${A $ $$ cost: 5$')
  })

  test('a value is inserted as is, never scanned for references again', () => {
    assert.equal(expand('$A', { A: '${B}', B: 'no' }), '${B}')
  })

  test('only own variables count: a reference to an inherited property name is left', () => {
    assert.equal(expand('$constructor ${toString}', {}), '$constructor ${toString}')
  })

  test('offsets of the new text lead back to the written text: after a value shifted, inside one to its $', () => {
    const expanded = expandEnvReferences('a: ${LONG}\nb: x', { LONG: 'abcdefghij' })
    assert.equal(expanded.text, 'a: abcdefghij\nb: x')
    assert.equal(expanded.writtenOffset(1), 1)
    assert.equal(expanded.writtenOffset(5), 3)
    assert.equal(expanded.writtenOffset(expanded.text.indexOf('b:')), 'a: ${LONG}\n'.length)
  })
})
