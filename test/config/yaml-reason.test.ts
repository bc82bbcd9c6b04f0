import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import jsYaml from 'js-yaml'
import { parseDocument } from 'yaml'
import { yamlReason } from '../../src/config/yaml-reason.ts'

const SECRET = 'do-not-print-me'

/** Every reason `yaml` (strict, as our files are read) gives for `text`, and the message of expanding it. */
function yamlMessages (text: string): string[] {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false, strict: true })
  const messages = [...doc.errors, ...doc.warnings].map((problem) => problem.message)
  try {
    doc.toJS({ maxAliasCount: 10 })
  } catch (error) {
    messages.push((error as Error).message)
  }
  return messages
}

/** The first of {@link yamlMessages}. */
function yamlMessage (text: string): string {
  const [first] = yamlMessages(text)
  if (first === undefined) throw new Error(`no problem in ${JSON.stringify(text)}`)
  return first
}

/** The reason js-yaml (client-node's kubeconfig parser) gives for `text`. */
function jsYamlReason (text: string): string {
  try {
    jsYaml.load(text)
  } catch (error) {
    return (error as { reason: string }).reason
  }
  throw new Error(`no problem in ${JSON.stringify(text)}`)
}

// An unquoted secret starting with one of YAML's indicators: the token the parsers quote.
const VALUES = [`*${SECRET}`, `!${SECRET}`, `!!${SECRET}`, `|${SECRET}`, `>${SECRET}`, `"\\x${SECRET}"`, `}}${SECRET}`, `]${SECRET}`]
const TEXTS = [...VALUES.map((value) => `client_secret: ${value}\n`), `%${SECRET}\n---\na: 1\n`]

describe('yamlReason', () => {
  test('the yaml parser\'s reasons that quote an unquoted secret (tag, alias, block scalar header, directive, escape, stray token) no longer do', () => {
    for (const text of TEXTS) {
      const messages = yamlMessages(text)
      assert.ok(messages.some((message) => /do-not|\\xdo/.test(message)), `the parser itself quotes ${JSON.stringify(text)} (else this case tests nothing)`)
      for (const message of messages) assert.doesNotMatch(yamlReason(message), /do-not|\\xdo/, `${JSON.stringify(text)}: ${yamlReason(message)}`)
    }
  })

  test('js-yaml\'s reasons that quote a tag or an alias (the kubeconfig parser) no longer do', () => {
    for (const text of [`token: *${SECRET}\n`, `token: !${SECRET} x\n`, `token: !!${SECRET} x\n`, `token: !<!${SECRET}> x\n`, `%TAG !x! tag:${SECRET},2000:\n---\na: !x!b c\n`]) {
      const reason = jsYamlReason(text)
      assert.match(reason, /do-not-print-me/, `js-yaml itself quotes ${JSON.stringify(text)} (else this case tests nothing)`)
      assert.doesNotMatch(yamlReason(reason), /do-not-print-me/, `${JSON.stringify(text)}: ${yamlReason(reason)}`)
    }
  })

  test('a tag, an alias and a block scalar header are told as such, with the fix', () => {
    assert.equal(yamlReason(yamlMessage(`a: !${SECRET}\n`)), 'unknown or invalid tag (a value starting with ! is a tag: put the value in quotes if it is not meant as one)')
    assert.equal(yamlReason(yamlMessage(`a: *${SECRET}\n`)), 'unresolved alias (a value starting with * is an alias: put the value in quotes if it is not meant as one)')
    assert.equal(yamlReason(yamlMessage(`a: >${SECRET}\n`)), 'characters after a block scalar header (a value starting with | or > is a block scalar: put the value in quotes if it is not meant as one)')
  })

  test('a stray token keeps the parser\'s words and loses the token', () => {
    assert.deepEqual(yamlMessages(`- ]${SECRET}\n`).map(yamlReason), ['Unexpected flow-seq-end token in YAML stream', 'Unexpected scalar token in YAML stream'])
  })

  test('reasons that quote nothing pass unchanged, on one line', () => {
    assert.equal(yamlReason(yamlMessage('a: [1\nb: 2\n')), yamlMessage('a: [1\nb: 2\n').split('\n')[0])
    assert.equal(yamlReason('bad indentation of a mapping entry (6:4)\n\n 3 | ...'), 'bad indentation of a mapping entry (6:4)')
    assert.equal(yamlReason('Missing closing "quote'), 'Missing closing "quote')
  })
})
