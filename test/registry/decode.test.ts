import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { decodeRegistry, DecodeBudgetError, RegistryDecodeError } from '../../src/registry/decode.ts'
import { wire } from '../helpers/feast-registry-writer.ts'
import { expectError } from '../helpers/errors.ts'

const { bytes, string, tag, varint } = wire
const PROJECT = bytes(17, bytes(1, string(1, 'demo')))
const file = (...parts: number[][]): Uint8Array => Uint8Array.from(parts.flat())

function refused (data: Uint8Array, pattern: RegExp): void {
  expectError(() => decodeRegistry(data), { type: RegistryDecodeError, message: pattern })
}

describe('decoding a registry file: what Python\'s protobuf refuses is refused', () => {
  it('a file cut in the middle of a field', () => {
    refused(file(PROJECT).subarray(0, 5), /runs past the end of the file \(truncated\?\)/)
  })

  it('wire types 6 and 7', () => {
    refused(file(PROJECT, tag(30, 6)), /invalid wire type 6/)
    refused(file(PROJECT, tag(30, 7)), /invalid wire type 7/)
  })

  it('field number 0', () => {
    refused(file(tag(0, 0), [1], PROJECT), /field number 0 \(at byte 0/)
  })

  it('an end-group tag without its start, and a group closed by another field\'s end', () => {
    refused(file(PROJECT, tag(30, 4)), /end-group tag without its start/)
    refused(file(PROJECT, tag(30, 3), tag(31, 4)), /end-group tag for field 31 in group 30/)
    refused(file(PROJECT, tag(30, 3), tag(1, 0), [1]), /group 30 has no end/)
  })

  it('a number longer than ten bytes', () => {
    refused(file(PROJECT, tag(30, 0), new Array(10).fill(0xff), [1]), /longer than 10 bytes/)
  })

  it('a string that is not valid UTF-8, naming where it is', () => {
    refused(file(bytes(17, bytes(1, [...string(1, 'demo'), ...bytes(3, [...string(1, 'k'), ...bytes(2, [0xff, 0xfe])])]))), /not valid UTF-8 in projects\[0\]\.spec\.tags\["k"\]/)
  })

  it('messages nested deeper than 100 levels (a feature view\'s batch source of a batch source of ...)', () => {
    let source = string(20, 'bottom')
    for (let i = 0; i < 150; i++) source = bytes(26, source)
    refused(file(bytes(6, bytes(1, bytes(7, source))), PROJECT), /nest deeper than 100 levels/)
  })
})

describe('decoding a registry file: a declared field with the wrong wire type is refused', () => {
  it('projects written as a 64-bit number, which a dispatch on field numbers alone would read', () => {
    refused(file(tag(17, 1), new Array(8).fill(0)), /projects \(field 17\) is written as 64-bit \(wire type 1\), but Feast declares it a repeated Project message \(wire type 2\) \(at byte 0 of 10\)/)
  })

  it('a feature view\'s online flag written as a string, naming the field\'s path', () => {
    refused(file(bytes(6, bytes(1, [...string(1, 'v'), ...bytes(8, [1])])), PROJECT), /online \(field 8\) is written as length-delimited \(wire type 2\), but Feast declares it a bool \(wire type 0\) in feature_views\[0\]\.spec/)
  })

  it('a permission\'s types written as 32-bit numbers', () => {
    refused(file(bytes(16, bytes(1, [...tag(3, 5), 0, 0, 0, 0])), PROJECT), /types \(field 3\) is written as 32-bit \(wire type 5\).* in permissions\[0\]\.spec/)
  })

  it('a validation reference\'s description read at its own number (4), not as the tags (5)', () => {
    const reference = bytes(13, [...string(1, 'ref'), ...string(3, 'demo'), ...string(4, 'a description'), ...bytes(5, [...string(1, 'k'), ...string(2, 'v')])])
    const registry = decodeRegistry(file(reference, PROJECT))
    assert.equal(registry.validation_references?.[0]?.description, 'a description')
    assert.deepEqual({ ...registry.validation_references?.[0]?.tags }, { k: 'v' })
  })
})

describe('decoding a registry file: what protobuf allows is read', () => {
  it('skips fields it does not declare, of every wire type, groups included', () => {
    const unknown = [...tag(30, 0), ...varint(-1), ...tag(31, 1), 1, 2, 3, 4, 5, 6, 7, 8, ...string(32, 'x'), ...tag(33, 5), 1, 2, 3, 4, ...tag(34, 3), ...tag(1, 0), 5, ...tag(35, 3), ...tag(35, 4), ...tag(34, 4)]
    const registry = decodeRegistry(file(unknown, bytes(17, bytes(1, [...unknown, ...string(1, 'demo')]))))
    assert.equal(registry.projects?.[0]?.spec?.name, 'demo')
  })

  it('reads repeated enums packed (as Feast writes them) and one by one', () => {
    const packed = bytes(16, bytes(1, bytes(3, [2, 11])))
    const unpacked = bytes(16, bytes(1, [...tag(3, 0), 2, ...tag(3, 0), 11]))
    assert.deepEqual(decodeRegistry(file(packed, PROJECT)).permissions?.[0]?.spec?.types, [2, 11])
    assert.deepEqual(decodeRegistry(file(unpacked, PROJECT)).permissions?.[0]?.spec?.types, [2, 11])
  })

  it('merges a message written in two parts, keeping the last value of a scalar (protobuf\'s rule)', () => {
    const registry = decodeRegistry(file(bytes(17, [...bytes(1, [...string(1, 'first'), ...string(2, 'described')]), ...bytes(1, string(1, 'demo'))])))
    assert.deepEqual(registry.projects?.[0]?.spec, { name: 'demo', description: 'described' })
  })

  it('reads a map entry without a value as the empty string', () => {
    const registry = decodeRegistry(file(bytes(17, bytes(1, [...string(1, 'demo'), ...bytes(3, string(1, 'flag'))]))))
    assert.deepEqual({ ...registry.projects?.[0]?.spec?.tags }, { flag: '' })
  })

  it('reads negative and 64-bit numbers', () => {
    const registry = decodeRegistry(file(bytes(5, [...tag(1, 0), ...varint(-5), ...tag(2, 0), ...varint(-1)]), PROJECT))
    assert.deepEqual({ ...registry.last_updated }, { seconds: -5, nanos: -1 })
  })
})

describe('decoding a registry file: the memory budget', () => {
  const views = Array.from({ length: 2000 }, (_, i) => bytes(6, bytes(1, [...string(1, `view_${i}`), ...bytes(4, string(1, 'f'))]))).flat()

  it('refuses a registry whose decoded form would exceed the budget, saying so', () => {
    assert.throws(() => decodeRegistry(file(views, PROJECT), { maxDecodedBytes: 200_000 }),
      (error: unknown) => error instanceof DecodeBudgetError && /more than the 200000 bytes of memory allowed \(maxDecodedBytes; stopped at byte \d+ of \d+\)/.test(error.message))
  })

  it('stops early: tiny messages that would take far more memory than their bytes are caught', () => {
    // 300,000 empty features: 600 KB of file, tens of MB of objects.
    const features = new Uint8Array(600_000)
    for (let i = 0; i < features.length; i += 2) { features[i] = 0x22; features[i + 1] = 0 }
    const body = Uint8Array.from([...string(1, 'v'), ...features])
    const data = file(tag(6, 2), varint(body.length + 1 + varint(body.length).length), tag(1, 2), varint(body.length), [...body], PROJECT)
    assert.throws(() => decodeRegistry(data, { maxDecodedBytes: 8_000_000 }), DecodeBudgetError)
    assert.equal(decodeRegistry(data, { maxDecodedBytes: 200_000_000 }).feature_views?.[0]?.spec?.features?.length, 300_000)
  })

  it('reads the same registry within a sufficient budget', () => {
    assert.equal(decodeRegistry(file(views, PROJECT), { maxDecodedBytes: 10_000_000 }).feature_views?.length, 2000)
  })
})

describe('decoding a registry file: a oneof holds the member read last, as Python\'s protobuf does', () => {
  const role = (...roles: string[]): number[] => bytes(3, roles.flatMap((name) => string(1, name)))
  const group = (...groups: string[]): number[] => bytes(4, groups.flatMap((name) => string(1, name)))
  const policyOf = (...policy: number[][]): unknown => {
    const permission = bytes(16, bytes(1, [...string(1, 'p'), ...string(2, 'demo'), ...bytes(7, policy.flat())]))
    return decodeRegistry(file(permission, PROJECT)).permissions?.[0]?.spec?.policy
  }

  it('keeps the group-based policy when a role-based policy comes before it', () => {
    assert.deepEqual(policyOf(role('admin'), group('readers')), { group_based_policy: { groups: ['readers'] } })
  })

  it('keeps the role-based policy when a group-based policy comes before it', () => {
    assert.deepEqual(policyOf(group('readers'), role('admin')), { role_based_policy: { roles: ['admin'] } })
  })

  it('merges a member written twice in a row, as any singular message', () => {
    assert.deepEqual(policyOf(role('a'), role('b')), { role_based_policy: { roles: ['a', 'b'] } })
  })

  it('starts a member afresh when it comes back after another member', () => {
    assert.deepEqual(policyOf(role('a'), group('readers'), role('b')), { role_based_policy: { roles: ['b'] } })
  })

  it('leaves the fields outside the oneof as they are', () => {
    assert.deepEqual(policyOf(string(1, 'named'), role('a'), string(2, 'demo'), group('g')), { name: 'named', project: 'demo', group_based_policy: { groups: ['g'] } })
  })

  it('charges the memory budget for every member it reads, the ones it unsets included', () => {
    // 5,000 members of 2 bytes each: alternating, each is a new object; repeated, one merged object.
    const alternating = Array.from({ length: 5000 }, (_, i) => i % 2 === 0 ? role() : group())
    const repeated = Array.from({ length: 5000 }, () => role())
    const budget = { maxDecodedBytes: 500_000 }
    const load = (members: number[][]): unknown => decodeRegistry(file(bytes(16, bytes(1, bytes(7, members.flat()))), PROJECT), budget)
    assert.throws(() => load(alternating), DecodeBudgetError)
    assert.doesNotThrow(() => load(repeated))
  })
})
