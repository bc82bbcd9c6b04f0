/* eslint-disable no-template-curly-in-string -- the ${NAME} references under test are plain text in YAML */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { readFeatureStoreFile } from '../../src/config/feature-store-file.ts'
import { warnOfUnsetReferences } from '../../src/config/unset-references.ts'
import { captureLogs } from '../helpers/logs.ts'

describe('warnings of environment variables feature_store.yaml refers to that are not set', () => {
  test('each reference is warned of by file, line and column, in the message as in the fields, for loggers that print only messages', () => {
    const logs = captureLogs()
    const file = readFeatureStoreFile({ yaml: 'project: demo\nauth:\n  type: oidc\n  client_secret: ${UNSET_SECRET}\n  password: $ALSO_UNSET\n', source: 'client.yaml' }, {})
    warnOfUnsetReferences(file, logs.logger)
    assert.deepEqual(logs.at('warn').map(({ source, line, column }) => ({ source, line, column })), [{ source: 'client.yaml', line: 4, column: 18 }, { source: 'client.yaml', line: 5, column: 13 }])
    assert.match(logs.at('warn')[0]?.msg ?? '', /^feast-authz: client\.yaml:4:18: refers to an environment variable that is not set/)
  })

  test('the name is never written, since it may be part of a secret that merely holds a $', () => {
    const logs = captureLogs()
    warnOfUnsetReferences(readFeatureStoreFile({ yaml: 'project: demo\nauth:\n  type: oidc\n  password: pa$sDoNotPrintMe\n', source: 'f.yaml' }, {}), logs.logger)
    assert.equal(logs.at('warn').length, 1)
    assert.doesNotMatch(logs.raw.join('\n'), /DoNotPrintMe/)
  })

  test('a file whose references are all set, or an object, is warned of nothing', () => {
    const logs = captureLogs()
    warnOfUnsetReferences(readFeatureStoreFile({ yaml: 'project: demo\nauth:\n  type: oidc\n  token: ${SET}\n', source: 'f.yaml' }, { SET: 'abc' }), logs.logger)
    warnOfUnsetReferences(readFeatureStoreFile({ project: 'demo', auth: { type: 'oidc', token: '${UNSET}' } }, {}), logs.logger)
    assert.deepEqual(logs.lines, [])
  })
})
