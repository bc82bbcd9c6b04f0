/**
 * The Express releases `feast-authz/express` supports, for suites that run once per release.
 *
 * - The majors: Express 5 (`express`) and Express 4 (the devDependency `express4`, an alias of
 *   npm:express@^4), each the newest release of its major the lockfile holds. Every Express suite
 *   runs them.
 * - The floors: the lowest release of each major the peer range (`^4.22.1 || ^5.1.0`) admits,
 *   pinned exactly (`express4-floor`, `express5-floor`). Only the suites that say what the adapter
 *   does run them: the decision table, the errors and the adapter's own suite
 *   (test/adapters/express-decision-table, express-errors and express). The docs examples, the
 *   wire-parity suite and the type tests stay on the majors, which keeps the floors' cost to a few
 *   seconds. A floor's dependencies are what its own ranges resolve to in the lockfile, as an app
 *   that installs that release today gets them.
 */
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import express from 'express'

/** An Express module: `express()` makes an app, `express.json()` a body parser. */
export type ExpressModule = typeof express

export interface ExpressRelease {
  /** `Express 5`, `Express 4`, `Express 4.22.1`: for test and suite names. */
  readonly name: string
  /** The major version the module must report. */
  readonly major: number
  /** For a floor, the exact version the module must report; a major's suite checks only its major. */
  readonly version?: string
  /** The package as a test imports it (`import.meta.resolve(specifier)` finds its entry). */
  readonly specifier: string
  readonly express: ExpressModule
}

const require = createRequire(import.meta.url)

// Express 4 ships no types (its @types/express4 alias serves only the type tests, which check our
// declarations against it): the app is driven through Express 5's types, which describe the part
// of the API these tests use as Express 4 has it too.
export const EXPRESS_MAJORS: readonly ExpressRelease[] = [
  { name: 'Express 5', major: 5, specifier: 'express', express },
  { name: 'Express 4', major: 4, specifier: 'express4', express: require('express4') as ExpressModule }
]

const floor = (version: string, specifier: string): ExpressRelease =>
  ({ name: `Express ${version}`, major: Number(version.split('.')[0]), version, specifier, express: require(specifier) as ExpressModule })

export const EXPRESS_FLOORS: readonly ExpressRelease[] = [floor('5.1.0', 'express5-floor'), floor('4.22.1', 'express4-floor')]

/** The majors, then the floors: for the suites that say what the adapter does. */
export const EXPRESS_RELEASES: readonly ExpressRelease[] = [...EXPRESS_MAJORS, ...EXPRESS_FLOORS]

/** The version of the Express `release` runs, from its package.json. */
export function installedVersion (release: ExpressRelease): string {
  return (require(`${release.specifier}/package.json`) as { version: string }).version
}

/** Fails unless the package `release` runs is the one it claims: its exact version for a floor, its major otherwise. */
export function assertInstalled (release: ExpressRelease): void {
  const installed = installedVersion(release)
  if (release.version !== undefined) assert.equal(installed, release.version, `${release.specifier} is Express ${installed}, not ${release.version}`)
  else assert.equal(installed.split('.')[0], String(release.major), `${release.specifier} is Express ${installed}, not ${release.major}`)
}
