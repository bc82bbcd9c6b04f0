#!/usr/bin/env node
import { existsSync } from 'node:fs'

// In a clone the sources are there and tsx (a devDependency) is installed: run them, so that
// `npm ci` alone makes `npx feast-authz` work and no stale build runs. The published package
// ships no sources and runs its build.
const sources = new URL('../src/cli/main.ts', import.meta.url)
const { runProcess } = existsSync(sources) && await registerTsx()
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

// runProcess writes through the CLI's terminal escaping and sets the exit code.
await runProcess()
