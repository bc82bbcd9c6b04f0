import { isMessageType, messageDescriptor, type FieldDescriptor, type MessageDescriptor, type MessageName } from './schema.ts'

/*
 * The encoder twin of `decode.ts`, driven by the same descriptors: it writes the fields the schema
 * declares, in field-number order as Feast's Python protobuf does (repeated scalars packed).
 */

/**
 * Serialises a registry given as a plain object in the schema's snake_case field names (enum
 * fields as numbers; a map field as an object, or as a `Map` to write its entries in that order),
 * for tests and tools that need a registry file; Feast writes the real ones.
 * Only the fields feast-authz reads can be written. Throws a TypeError naming a field the schema
 * does not have, a value of the wrong type, or two members of one oneof.
 */
export function encodeRegistry (registry: Record<string, unknown>): Uint8Array {
  const out: number[] = []
  writeMessage(out, 'Registry', registry, 'Registry')
  return Uint8Array.from(out)
}

function writeMessage (out: number[], name: MessageName, value: unknown, path: string): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new TypeError(`not a valid feast.core.Registry: ${path}: expected a ${name} object`)
  const descriptor = messageDescriptor(name)
  for (const key of Object.keys(value)) {
    if (!descriptor.byName.has(key)) throw new TypeError(`not a valid feast.core.Registry: ${path}: ${name} has no field ${key}`)
  }
  checkOneofs(descriptor, value as Record<string, unknown>, path)
  const fields = [...descriptor.byName].sort(([, a], [, b]) => a.no - b.no)
  for (const [fieldName, field] of fields) {
    const fieldValue = (value as Record<string, unknown>)[fieldName]
    if (fieldValue === undefined || fieldValue === null) continue
    writeField(out, field, fieldValue, `${path}.${fieldName}`)
  }
}

/** A message holds one member of each oneof; given two, the decoder would keep only the later one. */
function checkOneofs (descriptor: MessageDescriptor, value: Record<string, unknown>, path: string): void {
  for (const [group, members] of descriptor.oneofs) {
    const set = members.filter((member) => value[member] !== undefined && value[member] !== null)
    if (set.length > 1) throw new TypeError(`not a valid feast.core.Registry: ${path}: ${set.join(' and ')} are members of the oneof ${group}, which holds one`)
  }
}

function writeField (out: number[], field: FieldDescriptor, value: unknown, path: string): void {
  if (field.label === 'map') {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new TypeError(`not a valid feast.core.Registry: ${path}: expected an object or a Map`)
    // A Map is written in its order (an object puts keys named like integers first).
    for (const [key, entryValue] of value instanceof Map ? [...value as Map<unknown, unknown>] : Object.entries(value)) {
      if (typeof key !== 'string') throw new TypeError(`not a valid feast.core.Registry: ${path}: expected string keys`)
      const entry: number[] = []
      writeSingle(entry, { no: 1, type: 'string' }, key, path)
      writeSingle(entry, { no: 2, type: field.type }, entryValue, `${path}.${key}`)
      writeLengthDelimited(out, field.no, entry)
    }
    return
  }
  if (field.label === 'repeated') {
    if (!Array.isArray(value)) throw new TypeError(`not a valid feast.core.Registry: ${path}: expected a list`)
    if (isMessageType(field.type) || field.type === 'string') {
      value.forEach((item, i) => { writeSingle(out, field, item, `${path}[${i}]`) })
    } else if (value.length > 0) {
      const packed: number[] = []
      value.forEach((item, i) => { writeVarint(packed, scalarNumber(field, item, `${path}[${i}]`)) })
      writeLengthDelimited(out, field.no, packed)
    }
    return
  }
  writeSingle(out, field, value, path)
}

function writeSingle (out: number[], field: FieldDescriptor, value: unknown, path: string): void {
  if (isMessageType(field.type)) {
    const body: number[] = []
    writeMessage(body, field.type, value, path)
    writeLengthDelimited(out, field.no, body)
  } else if (field.type === 'string') {
    if (typeof value !== 'string') throw new TypeError(`not a valid feast.core.Registry: ${path}: expected a string`)
    writeLengthDelimited(out, field.no, [...Buffer.from(value, 'utf8')])
  } else {
    writeVarint(out, field.no * 8)
    writeVarint(out, scalarNumber(field, value, path))
  }
}

function scalarNumber (field: FieldDescriptor, value: unknown, path: string): number {
  if (field.type === 'bool') {
    if (typeof value !== 'boolean') throw new TypeError(`not a valid feast.core.Registry: ${path}: expected a boolean`)
    return value ? 1 : 0
  }
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw new TypeError(`not a valid feast.core.Registry: ${path}: expected an integer`)
  return value
}

function writeLengthDelimited (out: number[], no: number, body: readonly number[]): void {
  writeVarint(out, no * 8 + 2)
  writeVarint(out, body.length)
  for (const byte of body) out.push(byte)
}

function writeVarint (out: number[], value: number): void {
  // Negative numbers take ten bytes (two's complement over 64 bits), as protobuf writes them.
  let big = BigInt.asUintN(64, BigInt(value))
  while (big > 0x7fn) {
    out.push(Number(big & 0x7fn) | 0x80)
    big >>= 7n
  }
  out.push(Number(big))
}
