/**
 * A clock of the test's own: `Date` under node:test's MockTimers, so that a lifespan or an expiry
 * passes when the test says, never because a slow machine took its time.
 */
import type { TestContext } from 'node:test'

type MockTimers = TestContext['mock']['timers']

/**
 * Mocks `Date` for the rest of test `t`, starting at `now`; `tick(ms)` moves it on.
 *
 * Node 20 and 22 print "ExperimentalWarning: The MockTimers API is an experimental feature" the
 * first time a process touches `t.mock.timers` (Node 24 no longer does), into the test run's
 * output. That one warning is dropped, for that one moment: any other warning still prints.
 */
export function mockDate (t: TestContext, now: number = Date.now()): MockTimers {
  const timers = withoutMockTimersWarning(() => t.mock.timers)
  timers.enable({ apis: ['Date'], now })
  return timers
}

/** Runs `touch` (which creates MockTimers, whose constructor emits the warning synchronously) with that warning dropped. */
function withoutMockTimersWarning<T> (touch: () => T): T {
  const emitWarning = process.emitWarning
  process.emitWarning = function (this: NodeJS.Process, warning: string | Error, ...rest: unknown[]): void {
    const text = typeof warning === 'string' ? warning : warning.message
    const type = typeof rest[0] === 'string' ? rest[0] : typeof warning === 'string' ? undefined : warning.name
    if (type === 'ExperimentalWarning' && text.startsWith('The MockTimers API ')) return
    Reflect.apply(emitWarning, this, [warning, ...rest])
  } as typeof process.emitWarning
  try {
    return touch()
  } finally {
    process.emitWarning = emitWarning
  }
}
