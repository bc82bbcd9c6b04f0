#!/usr/bin/env node
import { main } from '../dist/cli/main.js'

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
