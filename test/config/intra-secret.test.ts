import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { describe, it } from 'node:test'
import { ConfigError } from '../../src/config/errors.ts'
import { decodeIntraSecret, readIntraSecret } from '../../src/config/intra-secret.ts'

const HELM_DEFAULT = Buffer.from('intra-server-communication').toString('base64')

describe('INTRA_COMMUNICATION_BASE64', () => {
  it('turns intra identity off when unset or empty', () => {
    assert.equal(readIntraSecret({}), undefined)
    assert.equal(readIntraSecret({ INTRA_COMMUNICATION_BASE64: '  ' }), undefined)
  })

  it('decodes a standard base64 secret of 32 bytes', () => {
    const bytes = randomBytes(32)
    assert.deepEqual(Buffer.from(readIntraSecret({ INTRA_COMMUNICATION_BASE64: bytes.toString('base64') }) ?? []), bytes)
  })

  it('decodes a URL-safe base64 secret', () => {
    const bytes = Buffer.alloc(33, 0xfb)
    assert.deepEqual(Buffer.from(decodeIntraSecret(bytes.toString('base64url'))), bytes)
  })

  it('refuses the Helm chart default, naming the variable and not the value', () => {
    assert.throws(() => decodeIntraSecret(HELM_DEFAULT), (error: unknown) => {
      assert.ok(error instanceof ConfigError)
      assert.match(error.message, /^INTRA_COMMUNICATION_BASE64: is the publicly known default of Feast's Helm chart/)
      assert.doesNotMatch(error.message, new RegExp(HELM_DEFAULT))
      return true
    })
  })

  it('refuses the unencoded chart default too', () => {
    assert.throws(() => decodeIntraSecret('intra-server-communication'), /publicly known default/)
  })

  it('refuses a secret shorter than 32 bytes once decoded', () => {
    assert.throws(() => decodeIntraSecret(randomBytes(31).toString('base64')), /decodes to 31 bytes; at least 32 are required/)
  })

  it('refuses a value that is not base64', () => {
    assert.throws(() => decodeIntraSecret('not base64 at all!'), /is not valid base64/)
  })
})
