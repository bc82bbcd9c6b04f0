/**
 * The Express majors `feast-authz/express` supports, for suites that run once per major: Express 5
 * (`express`) and Express 4 (the devDependency `express4`, an alias of npm:express@^4).
 */
import { createRequire } from 'node:module'
import express from 'express'

/** An Express module: `express()` makes an app, `express.json()` a body parser. */
export type ExpressModule = typeof express

export interface ExpressMajor {
  /** `Express 5`, `Express 4`: for test and suite names. */
  readonly name: string
  /** The major version the module must report, checked by the suites. */
  readonly major: number
  /** The package as a test imports it (`import.meta.resolve(specifier)` finds its entry). */
  readonly specifier: string
  readonly express: ExpressModule
}

const require = createRequire(import.meta.url)

// Express 4 ships no types (its @types/express4 alias serves only the type tests, which check our
// declarations against it): the app is driven through Express 5's types, which describe the part
// of the API these tests use as Express 4 has it too.
export const EXPRESS_MAJORS: readonly ExpressMajor[] = [
  { name: 'Express 5', major: 5, specifier: 'express', express },
  { name: 'Express 4', major: 4, specifier: 'express4', express: require('express4') as ExpressModule }
]

/** The version of the Express the suite for `major` runs, from its package.json. */
export function installedVersion (major: ExpressMajor): string {
  return (require(`${major.specifier}/package.json`) as { version: string }).version
}
