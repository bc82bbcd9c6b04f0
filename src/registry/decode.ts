import { Buffer, isUtf8 } from 'node:buffer'
import { runToEnd } from './steps.ts'
import { isMessageType, messageDescriptor, type FieldDescriptor, type MessageDescriptor, type NumberedField, type RegistryMessage } from './schema.ts'

/*
 * A protobuf decoder driven by the schema's descriptors (`schema.ts`), written for what a registry
 * reader needs that a general-purpose decoder does not give:
 * - it refuses what Python's protobuf refuses (truncation, wire types 6 and 7, field number 0,
 *   unbalanced groups, invalid UTF-8 in a string) and, stricter than Python (which keeps such a
 *   field as an unknown field), a declared field written with another wire type: reading it as
 *   absent could drop a permission or a project without a word;
 * - it estimates the memory its result takes as it goes and stops at a budget, before the
 *   process runs out of memory;
 * - it keeps its own stack instead of recursing (no stack overflow on deep nesting; a depth limit
 *   of 100, as Python's), so it can pause anywhere: it is a generator that yields every few
 *   thousand fields, and a caller can spread a large registry over many event-loop turns.
 * Merging follows protobuf: a singular message seen twice is merged, a scalar seen twice keeps
 * the last value, repeated fields append, a map keeps the last value of a key (an ordered map at
 * the place the key came first, as a Python dict does), and reading a member of a oneof unsets
 * the other members of its group (the last member on the wire is the one set; a member read again
 * after another one starts afresh).
 */

/** Limits of one decode. */
export interface DecodeLimits {
  /** Refuse a registry whose decoded form would take more than this many bytes (estimated). */
  readonly maxDecodedBytes: number
}

/**
 * Default memory budget of one registry load (`maxDecodedBytes`): 512 MiB, so the version in
 * force and the next fit side by side in a default Node heap (2 GiB or more).
 */
export const DEFAULT_MAX_DECODED_BYTES = 512 * 1024 * 1024

/** Protobuf messages nest at most this deep (Python's protobuf has the same default limit). */
const MAX_DEPTH = 100

/** The decoder yields after this many fields (a few hundred microseconds of work). */
const FIELDS_PER_STEP = 2048

// Estimated sizes (bytes) of what decoding allocates, on the generous side of V8's real costs
// (measured on Node 20: an empty message ~66 bytes with its list slot, a 30,000-view registry
// ~1,600 bytes a view once indexed), so the budget is reached before the heap is.
const OBJECT_COST = 96
const PROPERTY_COST = 24
const ELEMENT_COST = 16
const STRING_COST = 40
// Each object of the registry (an element of a top-level list) also becomes a resource of the
// snapshot, with its own copies and indexes: charged here so the budget covers a whole load.
const RESOURCE_COST = 640

const WIRE_NAMES = ['varint', '64-bit', 'length-delimited', 'start group', 'end group', '32-bit', '6', '7']

/** Why bytes are not a registry: a message naming the field and the byte where decoding stopped. */
export class RegistryDecodeError extends Error {
  override readonly name = 'RegistryDecodeError'
}

/** The registry would take more memory than the budget allows. */
export class DecodeBudgetError extends RegistryDecodeError {}

/** A map as decoded: a null-prototype object, or a `Map` for a map declared `ordered`. */
type DecodedMap = Record<string, unknown> | Map<string, unknown>

interface Frame {
  readonly message: MessageDescriptor
  readonly target: Record<string, unknown>
  readonly end: number
  readonly parent: Frame | undefined
  /** Where the frame sits in its parent, for error messages. */
  readonly field: string
  readonly index: number
  /** Set when the frame is a map entry: the map it adds to and the value's type. */
  readonly entry?: { readonly map: DecodedMap, readonly type: FieldDescriptor['type'] }
}

/**
 * Decodes a serialized `feast.core.Registry` in steps (a generator that yields now and then;
 * its return value is the registry). Throws a RegistryDecodeError saying why the bytes are not
 * one (a DecodeBudgetError when they would take too much memory); an empty buffer is refused too, because it decodes to an empty registry that would
 * otherwise mean "no permissions".
 */
export function * decodeRegistrySteps (bytes: Uint8Array, limits: DecodeLimits): Generator<void, RegistryMessage> {
  // Not a decode error: an empty buffer is a valid (empty) message, refused for what it would mean.
  if (bytes.length === 0) throw new Error('the file is empty (a Feast registry file is never empty)')
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const reader = new Reader(buf, limits.maxDecodedBytes)
  const root: Record<string, unknown> = {}
  let frame: Frame = { message: messageDescriptor('Registry'), target: root, end: buf.length, parent: undefined, field: '', index: -1 }
  let depth = 0
  let fields = 0
  for (;;) {
    if (reader.pos >= frame.end) {
      if (reader.pos > frame.end) reader.fail(frame, 'a field runs past the end of its message')
      if (frame.parent === undefined) break
      if (frame.entry !== undefined) closeEntry(frame, reader)
      frame = frame.parent
      depth--
      continue
    }
    if (++fields === FIELDS_PER_STEP) { fields = 0; yield }
    const at = reader.pos
    const tag = reader.varint32(frame)
    const number = tag >>> 3
    const wire = tag & 7
    if (number === 0) reader.fail(frame, 'field number 0', at)
    if (wire === 6 || wire === 7) reader.fail(frame, `invalid wire type ${wire}`, at)
    if (wire === 4) reader.fail(frame, 'an end-group tag without its start', at)
    const declared = frame.entry !== undefined ? entryField(frame, number) : frame.message.byNumber.get(number)
    if (declared === undefined) { reader.skip(frame, number, wire, depth); continue }
    const { name, field, oneofSiblings } = declared
    const message = isMessageType(field.type)
    const packable = !message && field.type !== 'string' && field.label === 'repeated'
    const expected = message || field.type === 'string' || field.label === 'map' ? 2 : 0
    if (wire !== expected && !(packable && wire === 2)) {
      reader.fail(frame, `${name} (field ${number}) is written as ${WIRE_NAMES[wire] ?? wire} (wire type ${wire}), but Feast declares it ${describe(field)} (wire type ${expected})`, at)
    }
    const target = frame.target
    if (oneofSiblings !== undefined) unsetSiblings(target, oneofSiblings)
    if (field.label === 'map') {
      const length = reader.length(frame)
      const map = (target[name] ??= field.ordered === true ? reader.orderedMap() : reader.object(true)) as DecodedMap
      if (++depth > MAX_DEPTH) reader.fail(frame, `messages nest deeper than ${MAX_DEPTH} levels`, at)
      const entry: Record<string, unknown> = {}
      frame = { message: frame.message, target: entry, end: reader.pos + length, parent: frame, field: name, index: -1, entry: { map, type: field.type } }
      continue
    }
    if (message) {
      const length = reader.length(frame)
      if (++depth > MAX_DEPTH) reader.fail(frame, `messages nest deeper than ${MAX_DEPTH} levels`, at)
      let child: Record<string, unknown>
      let index = -1
      if (field.label === 'repeated') {
        const list = (target[name] ??= reader.list()) as unknown[]
        index = list.length
        child = reader.object()
        list.push(child)
        reader.charge(frame.parent === undefined ? ELEMENT_COST + RESOURCE_COST : ELEMENT_COST)
      } else {
        // A singular message seen twice is merged into the first (protobuf's rule).
        child = (target[name] ??= reader.object()) as Record<string, unknown>
      }
      frame = {
        message: messageDescriptor(field.type as Parameters<typeof messageDescriptor>[0]),
        target: child,
        end: reader.pos + length,
        parent: frame,
        field: name,
        index
      }
      continue
    }
    if (field.label === 'repeated') {
      const list = (target[name] ??= reader.list()) as unknown[]
      if (wire === 2 && packable) {
        const length = reader.length(frame)
        const end = reader.pos + length
        while (reader.pos < end) { list.push(reader.scalar(frame, field)); reader.charge(ELEMENT_COST) }
        if (reader.pos !== end) reader.fail(frame, `${name}: a packed list runs past its end`, at)
      } else {
        list.push(reader.scalar(frame, field))
        reader.charge(ELEMENT_COST)
      }
      continue
    }
    if (!(name in target)) reader.charge(PROPERTY_COST)
    target[name] = reader.scalar(frame, field)
  }
  return root as RegistryMessage
}

/** Decodes a serialized `feast.core.Registry` at once (see `decodeRegistrySteps`). */
export function decodeRegistry (bytes: Uint8Array, limits: DecodeLimits = { maxDecodedBytes: DEFAULT_MAX_DECODED_BYTES }): RegistryMessage {
  return runToEnd(decodeRegistrySteps(bytes, limits))
}

// A map entry is a message { key = 1; value = 2 } with the map's value type.
const KEY_FIELD: FieldDescriptor = { no: 1, type: 'string' }

function entryField (frame: Frame, number: number): NumberedField | undefined {
  if (number === 1) return { name: 'key', field: KEY_FIELD }
  if (number === 2) return { name: 'value', field: { no: 2, type: frame.entry?.type ?? 'string' } }
  return undefined
}

/**
 * Protobuf keeps one member of a oneof: the one read last. What an unset member was charged is
 * not given back: it stays on the heap until a collection, and it covers the larger (dictionary)
 * form V8 may give a message that loses a property (~170 bytes more for a small one on Node 20).
 */
function unsetSiblings (target: Record<string, unknown>, siblings: readonly string[]): void {
  for (const sibling of siblings) Reflect.deleteProperty(target, sibling)
}

function closeEntry (frame: Frame, reader: Reader): void {
  const { map, type }: NonNullable<Frame['entry']> = frame.entry ?? { map: {}, type: 'string' }
  const key = (frame.target.key as string | undefined) ?? ''
  // A missing value is the type's default (an empty message or string).
  const value = frame.target.value ?? (isMessageType(type) ? {} : type === 'bool' ? false : type === 'string' ? '' : 0)
  if (map instanceof Map) {
    if (!map.has(key)) reader.charge(PROPERTY_COST + ELEMENT_COST)
    map.set(key, value)
    return
  }
  if (!(key in map)) reader.charge(PROPERTY_COST + ELEMENT_COST)
  map[key] = value
}

function describe (field: FieldDescriptor): string {
  if (field.label === 'map') return `a map<string, ${field.type}>`
  const type = isMessageType(field.type) ? `${field.type} message` : field.type
  return field.label === 'repeated' ? `a repeated ${type}` : `a ${type}`
}

class Reader {
  pos = 0
  private cost = 0
  private lo = 0
  private hi = 0

  constructor (private readonly buf: Buffer, private readonly budget: number) {
    // The bytes themselves stay referenced while decoding.
    this.charge(buf.length)
  }

  charge (bytes: number): void {
    this.cost += bytes
    if (this.cost > this.budget) {
      throw new DecodeBudgetError(`decoding it would take more than the ${this.budget} bytes of memory allowed (maxDecodedBytes; stopped at byte ${this.pos} of ${this.buf.length})`)
    }
  }

  /** A message, or a map (null-prototype: a key called `__proto__` is just a key). */
  object (map = false): Record<string, unknown> {
    this.charge(OBJECT_COST + PROPERTY_COST)
    return map ? Object.create(null) as Record<string, unknown> : {}
  }

  /** A map declared `ordered`: its keys in the order the file writes them, whatever they look like. */
  orderedMap (): Map<string, unknown> {
    this.charge(OBJECT_COST + PROPERTY_COST)
    return new Map()
  }

  list (): unknown[] {
    this.charge(OBJECT_COST + PROPERTY_COST)
    return []
  }

  fail (frame: Frame, reason: string, at: number = this.pos): never {
    const path = pathOf(frame)
    throw new RegistryDecodeError(`${reason}${path === '' ? '' : ` in ${path}`} (at byte ${at} of ${this.buf.length})`)
  }

  /** Reads a varint into lo/hi (two unsigned 32-bit halves). */
  private varint (frame: Frame): void {
    const buf = this.buf
    let lo = 0
    let hi = 0
    let shift = 0
    for (let i = 0; i < 10; i++) {
      if (this.pos >= buf.length) this.fail(frame, 'the file ends in the middle of a number (truncated?)')
      const byte = buf[this.pos++] as number
      if (shift < 28) lo |= (byte & 0x7f) << shift
      else if (shift === 28) { lo |= (byte & 0x0f) << 28; hi |= (byte & 0x7f) >>> 4 } else hi |= (byte & 0x7f) << (shift - 32)
      if (byte < 0x80) { this.lo = lo >>> 0; this.hi = hi >>> 0; return }
      shift += 7
    }
    this.fail(frame, 'a number longer than 10 bytes')
  }

  varint32 (frame: Frame): number {
    this.varint(frame)
    if (this.hi !== 0) this.fail(frame, 'a tag or length out of range')
    return this.lo
  }

  length (frame: Frame): number {
    const length = this.varint32(frame)
    if (length > frame.end - this.pos) this.fail(frame, `a ${length}-byte field runs past the end of ${frame.parent === undefined ? 'the file (truncated?)' : 'its message'}`)
    return length
  }

  scalar (frame: Frame, field: FieldDescriptor): string | number | boolean {
    switch (field.type) {
      case 'string': {
        const length = this.length(frame)
        const start = this.pos
        this.pos += length
        const bytes = this.buf.subarray(start, this.pos)
        if (!isUtf8(bytes)) this.fail(frame, 'a string that is not valid UTF-8', start)
        this.charge(STRING_COST + length * 2)
        return bytes.toString('utf8')
      }
      case 'bool':
        this.varint(frame)
        return this.lo !== 0 || this.hi !== 0
      case 'int64':
        this.varint(frame)
        return (this.hi | 0) * 0x100000000 + this.lo
      default:
        // int32 and enums: the low 32 bits, signed.
        this.varint(frame)
        return this.lo | 0
    }
  }

  /** Skips an undeclared field (groups included, as Python's protobuf keeps them). */
  skip (frame: Frame, number: number, wire: number, depth: number): void {
    switch (wire) {
      case 0: this.varint(frame); return
      case 1: this.advance(frame, 8); return
      case 2: this.advance(frame, this.length(frame)); return
      case 5: this.advance(frame, 4); return
      default: break
    }
    // A group: fields up to the matching end-group tag.
    const open = [number]
    while (open.length > 0) {
      if (depth + open.length > MAX_DEPTH) this.fail(frame, `messages nest deeper than ${MAX_DEPTH} levels`)
      if (this.pos >= frame.end) this.fail(frame, `group ${number} has no end`)
      const at = this.pos
      const tag = this.varint32(frame)
      const inner = tag >>> 3
      const innerWire = tag & 7
      if (inner === 0 || innerWire === 6 || innerWire === 7) this.fail(frame, `invalid tag ${tag} in group ${number}`, at)
      if (innerWire === 4) {
        if (inner !== open.pop()) this.fail(frame, `an end-group tag for field ${inner} in group ${number}`, at)
      } else if (innerWire === 3) {
        open.push(inner)
      } else {
        this.skip(frame, inner, innerWire, depth)
      }
    }
  }

  private advance (frame: Frame, bytes: number): void {
    if (bytes > frame.end - this.pos) this.fail(frame, 'a field runs past the end of its message (truncated?)')
    this.pos += bytes
  }
}

function pathOf (frame: Frame): string {
  const parts: string[] = []
  for (let at: Frame | undefined = frame; at?.parent !== undefined; at = at.parent) {
    if (at.entry !== undefined) {
      const key = at.target.key
      parts.push(typeof key === 'string' ? `${at.field}[${JSON.stringify(key)}]` : at.field)
    } else {
      parts.push(at.index >= 0 ? `${at.field}[${at.index}]` : at.field)
    }
  }
  return parts.reverse().join('.')
}
