import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { RE2JS } from 're2js'
import { decide, permission, PermissionError, allowAll, type Permission } from '../../src/permissions/index.ts'
import { compileNamePattern, MAX_MATCHED_NAME_LENGTH, MAX_PATTERN_PROGRAM_SIZE } from '../../src/permissions/name-pattern.ts'
import { expectError } from '../helpers/errors.ts'

const anyone = { roles: [], groups: [], namespaces: [] }
const only = (pattern: string): Permission[] => [permission({ name: 'scoped', types: ['FeatureView'], namePatterns: pattern, actions: ['DESCRIBE'], policy: allowAll })]
const allowed = (permissions: Permission[], name: string): boolean => decide(permissions, anyone, { type: 'FeatureView', name }, ['DESCRIBE']).allowed

describe('name patterns keep Python re.fullmatch semantics', () => {
  const cases: ReadonlyArray<readonly [string, string, boolean]> = [
    ['test.*', 'test1', true],
    ['test.*', 'wrongtest', false],
    ['driver_.*', 'driver_', true],
    ['(?P<team>[a-z]+)_stats', 'driver_stats', true],
    ['(?i)driver_.*', 'DRIVER_hourly', true],
    ['\\Adriver\\Z', 'driver', true],
    ['\\Adriver\\Z', 'driver2', false],
    ['a|b', 'ab', false],
    ['[]a]+', ']a]', true],
    ['\\d+', '123', true],
    ['', '', true],
    ['.*', 'line\nbreak', false]
  ]
  for (const [pattern, name, expected] of cases) {
    test(`${JSON.stringify(pattern)} ${expected ? 'matches' : 'does not match'} the whole name ${JSON.stringify(name)}`, () => {
      assert.equal(compileNamePattern(pattern).matches(name), expected)
    })
  }

  test('a Python \\\\Z that is an escaped backslash followed by Z stays a literal', () => {
    assert.equal(compileNamePattern('a\\\\Z').matches('a\\Z'), true)
  })
})

describe('Python syntax that RE2 reads otherwise is read as Python reads it', () => {
  test('a repetition with no lower bound, {,n}, repeats zero to n times as in Python, where RE2 would read it as literal text', () => {
    const pattern = compileNamePattern('team_[a-z]{,8}')
    assert.equal(pattern.matches('team_abc'), true)
    assert.equal(pattern.matches('team_'), true)
    assert.equal(pattern.matches('team_abcdefghi'), false)
    assert.equal(pattern.matches('team_[a-z]{,8}'), false)
  })

  test('a repetition with neither bound, {,}, repeats any number of times as in Python', () => {
    assert.equal(compileNamePattern('a{,}').matches('aaaa'), true)
    assert.equal(compileNamePattern('a{,}').matches('a{,}'), false)
  })

  test('{,n} inside a character class or after an escaped brace stays literal text, as in Python', () => {
    assert.equal(compileNamePattern('[{,3}]+').matches('{,3'), true)
    assert.equal(compileNamePattern('a\\{,3}').matches('a{,3}'), true)
    assert.equal(compileNamePattern('[]{,3}]+').matches(']{,3'), true)
  })

  test('a \\uXXXX or \\UXXXXXXXX escape names that character, as in Python, inside a class too', () => {
    assert.equal(compileNamePattern('caf\\u00e9_.*').matches('café_stats'), true)
    assert.equal(compileNamePattern('[\\u00e0-\\u00ff]+').matches('éà'), true)
    assert.equal(compileNamePattern('\\U0001f600').matches('😀'), true)
  })

  test('a [ inside a character class is a literal [, as in Python, not the start of a POSIX class such as [:alpha:]', () => {
    // Python reads [[:alpha:]] as one of [ : a l p h, then a literal ].
    assert.equal(compileNamePattern('[[:alpha:]]').matches('a]'), true)
    assert.equal(compileNamePattern('[[:alpha:]]').matches('a'), false)
  })

  test('a comment (?#...) matches nothing, as in Python, where RE2 would refuse it', () => {
    assert.equal(compileNamePattern('driver_(?#the team prefix).*').matches('driver_stats'), true)
  })

  test('an escaped backslash followed by u stays a backslash and a u', () => {
    assert.equal(compileNamePattern('a\\\\u00e9').matches('a\\u00e9'), true)
  })
})

describe('catastrophic regular expressions cannot stall a decision', () => {
  // The guarantee is structural, so it is checked by counting work (see countingName), never by
  // timing it on a shared machine.
  test('the issue\'s pattern ([a-z0-9]+_?)+_prod decides a 34-character name within RE2\'s bound of work, and still matches team_a_prod', () => {
    const name = countingName('a'.repeat(34))
    assert.equal(compileNamePattern('([a-z0-9]+_?)+_prod').matches(name.value), false)
    assert.ok(name.reads() > 0, 'the match did not read the name through the counter')
    assert.equal(allowed(only('([a-z0-9]+_?)+_prod'), 'a'.repeat(34)), false)
    assert.equal(allowed(only('([a-z0-9]+_?)+_prod'), 'team_a_prod'), true)
  })

  test(`a name longer than ${MAX_MATCHED_NAME_LENGTH} characters matches no name pattern, so a pattern-scoped permission does not apply`, () => {
    const permissions = only('a*')
    assert.equal(allowed(permissions, 'a'.repeat(MAX_MATCHED_NAME_LENGTH)), true)
    const decision = decide(permissions, anyone, { type: 'FeatureView', name: 'a'.repeat(MAX_MATCHED_NAME_LENGTH + 1) }, ['DESCRIBE'])
    assert.equal(decision.allowed, false)
    assert.deepEqual(decision.explanation[0]?.unmatched, ['name_pattern'])
  })

  test(`a name longer than ${MAX_MATCHED_NAME_LENGTH} characters is not read at all by a match`, () => {
    const name = countingName('a'.repeat(MAX_MATCHED_NAME_LENGTH + 1))
    assert.equal(compileNamePattern('a*').matches(name.value), false)
    assert.equal(name.reads(), 0)
  })

  test(`a pattern compiling to more than ${MAX_PATTERN_PROGRAM_SIZE} RE2 instructions is refused at load, and one of exactly ${MAX_PATTERN_PROGRAM_SIZE} is accepted`, () => {
    // a{n} compiles to n instructions and a few more; the sizes are RE2's, so asked of RE2.
    let largest = 1
    while (RE2JS.compile(`a{${largest + 1}}`).programSize() <= MAX_PATTERN_PROGRAM_SIZE) largest++
    assert.equal(RE2JS.compile(`a{${largest}}`).programSize(), MAX_PATTERN_PROGRAM_SIZE)
    assert.equal(compileNamePattern(`a{${largest}}`).matches('a'.repeat(largest)), true)
    expectError(() => only(`a{${largest + 1}}`), { type: PermissionError, field: 'namePatterns[0]', message: new RegExp(`compiles to ${MAX_PATTERN_PROGRAM_SIZE + 1} instructions, more than ${MAX_PATTERN_PROGRAM_SIZE}`) })
  })

  test('a pattern that only a backtracking engine can run is refused at load, naming the permission and the pattern', () => {
    expectError(() => only('(\\w+)\\1'), { type: PermissionError, permission: 'scoped', field: 'namePatterns[0]', message: /"\(\\\\w\+\)\\\\1" uses backreferences/ })
  })

  // Patterns built from the constructs that make backtracking engines explode: nested and
  // counted quantifiers, overlapping alternatives, wildcards.
  const atom = fc.constantFrom('a', 'b', '_', '.', '[a-z0-9]', '[ab]', '\\d', '\\w', 'a?', '[^_]')
  const pattern: fc.Arbitrary<string> = fc.letrec((tie) => ({
    node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, atom, tie('seq'), tie('alt'), tie('rep')),
    seq: fc.array(tie('node'), { minLength: 1, maxLength: 4 }).map((parts) => parts.join('')),
    alt: fc.array(tie('node'), { minLength: 2, maxLength: 3 }).map((parts) => `(?:${parts.join('|')})`),
    rep: fc.tuple(tie('node'), fc.constantFrom('*', '+', '?', '{2,}', '{1,20}', '{5}', '{0,40}')).map(([inner, quantifier]) => `(${inner})${quantifier}`)
  })).node as fc.Arbitrary<string>

  test(`any pattern is refused or bounded (≤ ${MAX_PATTERN_PROGRAM_SIZE} RE2 instructions), and a match on a name up to ${MAX_MATCHED_NAME_LENGTH} characters stays within RE2's bound of reads`, () => {
    let compiled = 0
    fc.assert(fc.property(pattern, fc.constantFrom('a', 'ab', 'a_', 'ab_1'), (source, alphabet) => {
      let compiledPattern
      try {
        compiledPattern = compileNamePattern(source)
      } catch (error) {
        assert.ok(error instanceof PermissionError && /too large/.test(error.message), `${source}: ${String(error)}`)
        return
      }
      compiled++
      const full = alphabet.repeat(MAX_MATCHED_NAME_LENGTH).slice(0, MAX_MATCHED_NAME_LENGTH)
      for (const text of [full, `${full.slice(0, -1)}!`]) {
        assert.equal(typeof compiledPattern.matches(countingName(text).value), 'boolean', JSON.stringify(source))
      }
    }), { numRuns: 150 })
    assert.ok(compiled > 50, `only ${compiled} generated patterns compiled: the generator no longer exercises matching`)
  })

  test('on short names, the linear-time engine agrees with a backtracking full match on every generated pattern', () => {
    fc.assert(fc.property(pattern, fc.string({ unit: fc.constantFrom('a', 'b', '_', '1', '-'), maxLength: 8 }), (source, name) => {
      let compiled
      try { compiled = compileNamePattern(source) } catch { return }
      assert.equal(compiled.matches(name), new RegExp(`^(?:${source})$`).test(name), `${JSON.stringify(source)} on ${JSON.stringify(name)}`)
    }), { numRuns: 300 })
  })
})

/**
 * A name that counts how often a match reads its characters, and throws once the count passes
 * RE2's bound: the backtracker visits each (instruction, position) pair at most once and reads at
 * most two UTF-16 units a visit (a surrogate pair, or both sides of `\b`), so with the two caps a
 * match reads at most 2 × MAX_PATTERN_PROGRAM_SIZE × (length + 1) units. A backtracking engine
 * passes that bound on the patterns below within milliseconds, where timing it would take hours.
 *
 * re2js takes a String object and reads it through `charCodeAt` (and `indexOf` to find a literal
 * prefix, counted as a read of the whole name). A matcher that first turns the name into a plain
 * string (a `RegExp` does) escapes the count, so that is an error too.
 */
function countingName (text: string): { readonly value: string, reads: () => number } {
  const limit = 2 * MAX_PATTERN_PROGRAM_SIZE * (text.length + 1)
  let reads = 0
  const read = (units: number): void => {
    reads += units
    if (reads > limit) throw new Error(`the match read a ${text.length}-character name more than ${limit} times`)
  }
  class CountingName extends String {
    override charCodeAt (index: number): number { read(1); return text.charCodeAt(index) }
    override indexOf (search: string, position?: number): number { read(text.length); return text.indexOf(search, position) }
    override toString (): string { throw new Error('the matcher converted the name to a plain string, so its reads cannot be counted') }
  }
  return { value: new CountingName(text) as unknown as string, reads: () => reads }
}
