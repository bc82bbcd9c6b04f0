import assert from 'node:assert/strict'
import { generateKeyPairSync, sign, verify } from 'node:crypto'
import { describe, test } from 'node:test'
import { derSignature } from '../../../src/managers/oidc/ecdsa-der.ts'

const CURVES = [
  { curve: 'P-256', hash: 'sha256', half: 32 },
  { curve: 'P-384', hash: 'sha384', half: 48 },
  { curve: 'P-521', hash: 'sha512', half: 66 }
] as const

/** r ‖ s from the DER Node writes, the reverse of what the module does (test-side, by the book). */
function p1363FromDer (der: Buffer, half: number): Buffer {
  let at = der[1]! === 0x81 ? 3 : 2
  const integers: Buffer[] = []
  for (let i = 0; i < 2; i++) {
    const length = der[at + 1]!
    const value = der.subarray(at + 2, at + 2 + length)
    const unsigned = value[0] === 0 && value.length > 1 ? value.subarray(1) : value
    integers.push(Buffer.concat([Buffer.alloc(half - unsigned.length), unsigned]))
    at += 2 + length
  }
  return Buffer.concat(integers)
}

describe('ECDSA signatures from r ‖ s to DER', () => {
  for (const { curve, hash, half } of CURVES) {
    test(`gives the very bytes Node writes for ${curve} signatures, 200 of them`, () => {
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: curve })
      for (let i = 0; i < 200; i++) {
        const der = sign(hash, Buffer.from(`message ${i}`), privateKey)
        assert.deepEqual(Buffer.from(derSignature(p1363FromDer(der, half), half)!), der, `signature ${i}`)
      }
    })

    test(`converts ${curve} signatures that the bare public key then verifies`, () => {
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: curve })
      const data = Buffer.from('signing input')
      const p1363 = sign(hash, data, { key: privateKey, dsaEncoding: 'ieee-p1363' })
      assert.equal(verify(hash, data, publicKey, derSignature(p1363, half)!), true)
    })
  }

  test('drops leading zero bytes and keeps a zero byte before a set top bit', () => {
    const signature = Buffer.concat([Buffer.from([0, 0, 0x80]), Buffer.alloc(29, 1), Buffer.from([0x7f]), Buffer.alloc(31, 2)])
    const der = Buffer.from(derSignature(signature, 32)!)
    const r = Buffer.concat([Buffer.from([0x00, 0x80]), Buffer.alloc(29, 1)])
    const s = Buffer.concat([Buffer.from([0x7f]), Buffer.alloc(31, 2)])
    assert.deepEqual(der, Buffer.concat([Buffer.from([0x30, 2 + r.length + 2 + s.length, 0x02, r.length]), r, Buffer.from([0x02, s.length]), s]))
  })

  test('writes a zero integer as one zero byte', () => {
    assert.deepEqual(Buffer.from(derSignature(Buffer.alloc(64), 32)!), Buffer.from([0x30, 6, 0x02, 1, 0, 0x02, 1, 0]))
  })

  test('uses the long length form past 127 bytes of content (P-521 with both top bits set)', () => {
    const der = Buffer.from(derSignature(Buffer.alloc(132, 0xff), 66)!)
    assert.deepEqual([...der.subarray(0, 5)], [0x30, 0x81, 138, 0x02, 67])
    assert.equal(der.length, 141)
  })

  test('gives nothing for a signature whose length is not twice the curve size', () => {
    assert.equal(derSignature(Buffer.alloc(63), 32), undefined)
    assert.equal(derSignature(Buffer.alloc(65), 32), undefined)
    assert.equal(derSignature(Buffer.alloc(0), 32), undefined)
  })
})
