import assert from 'node:assert/strict'
import { cpuUsage } from 'node:process'
import { describe, test } from 'node:test'
import fc from 'fast-check'
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

describe('catastrophic regular expressions cannot stall a decision', () => {
  test('the issue\'s pattern ([a-z0-9]+_?)+_prod with a 34-character name is refused in well under a millisecond of work', () => {
    const permissions = only('([a-z0-9]+_?)+_prod')
    const perDecisionMs = Math.min(...[1, 2, 3].map(() => {
      const started = cpuUsage()
      for (let i = 0; i < 100; i++) assert.equal(allowed(permissions, 'a'.repeat(34)), false)
      return cpuTimeMs(started) / 100
    }))
    assert.ok(perDecisionMs < 1, `one decision took ${perDecisionMs} ms of CPU`)
    assert.equal(allowed(permissions, 'team_a_prod'), true)
  })

  test(`a name longer than ${MAX_MATCHED_NAME_LENGTH} characters matches no name pattern, so a pattern-scoped permission does not apply`, () => {
    const permissions = only('a*')
    assert.equal(allowed(permissions, 'a'.repeat(MAX_MATCHED_NAME_LENGTH)), true)
    const decision = decide(permissions, anyone, { type: 'FeatureView', name: 'a'.repeat(MAX_MATCHED_NAME_LENGTH + 1) }, ['DESCRIBE'])
    assert.equal(decision.allowed, false)
    assert.deepEqual(decision.explanation[0]?.unmatched, ['name_pattern'])
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

  test(`any pattern is refused or bounded (≤ ${MAX_PATTERN_PROGRAM_SIZE} RE2 instructions), and no decision on a name up to ${MAX_MATCHED_NAME_LENGTH} characters takes 1 ms of work`, () => {
    // The guarantee is the engine's: RE2's bounded backtracker visits each (instruction, position)
    // pair once, so the work is at most program size × name length. The CPU-time bound below is
    // 5× the 1 ms target (shared CI machines), while a backtracking engine needs seconds here.
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
      const permissions = only(source)
      const names = [alphabet.repeat(MAX_MATCHED_NAME_LENGTH).slice(0, MAX_MATCHED_NAME_LENGTH), `${alphabet.repeat(MAX_MATCHED_NAME_LENGTH).slice(0, MAX_MATCHED_NAME_LENGTH - 1)}!`]
      // The least of three runs: a garbage collection or a JIT compilation lands in one run,
      // while a pattern that really backtracks is slow in all of them.
      const perDecisionMs = Math.min(...[1, 2, 3].map(() => {
        const started = cpuUsage()
        for (const name of names) allowed(permissions, name)
        return cpuTimeMs(started) / names.length
      }))
      assert.ok(perDecisionMs < 5, `${JSON.stringify(source)} took ${perDecisionMs.toFixed(2)} ms per decision`)
      assert.equal(typeof compiledPattern.matches('a'), 'boolean')
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

function cpuTimeMs (since: NodeJS.CpuUsage): number {
  const { user, system } = cpuUsage(since)
  return (user + system) / 1000
}
