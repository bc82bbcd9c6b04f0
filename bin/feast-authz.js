#!/usr/bin/env node
import { existsSync } from 'node:fs'

// In a clone the sources are there and tsx (a devDependency) is installed: run them, so that
// `npm ci` alone makes `npx feast-authz` work and no stale build runs. The published package
// ships no sources and runs its build.
const sources = new URL('../src/cli/main.ts', import.meta.url)
const { main } = existsSync(sources) && await registerTsx()
  ? await import(sources.href)
  : await import('../dist/cli/main.js')

async function registerTsx () {
  try {
    const { register } = await import('tsx/esm/api')
    register()
    return true
  } catch {
    return false
  }
}

main(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env
}).then(
  (code) => { process.exitCode = code },
  (error) => {
    process.stderr.write(`feast-authz: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exitCode = 2
  }
)
