/**
 * `feast-authz/express` for documented examples that the tests run as written: the entry of the
 * sources, except that an example giving no `logger` logs into {@link exampleLogs} instead of to
 * stdout (the default a reader sees), where it would land among the test run's own output.
 * A test maps the example's `feast-authz/express` import here and reads the lines it asserts on.
 */
import { feastAuthzExpress as feastAuthzExpressOfSources, type FeastAuthzExpress, type FeastAuthzExpressOptions } from '../../src/adapters/express.ts'
import { captureLogs } from './logs.ts'

export * from '../../src/adapters/express.ts'

/** What the examples of this process logged without a logger of their own. */
export const exampleLogs = captureLogs()

export function feastAuthzExpress (options: FeastAuthzExpressOptions = {}): FeastAuthzExpress {
  return feastAuthzExpressOfSources({ logger: exampleLogs.logger, ...options })
}

export default feastAuthzExpress
