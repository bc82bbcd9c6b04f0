/**
 * `node --import <this file>` with HIDE_PACKAGES=a,b: a process in which packages a and b (and
 * their subpaths) cannot be imported, as if they were not installed, although they are in the
 * repository's node_modules. A module resolve hook; plain JavaScript, so that it also runs in the
 * packed package's consumer projects, which have no TypeScript loader.
 *
 * The hook sees ES imports only: on Node 20 a CommonJS `require` bypasses it, so a test that
 * uses it also checks the require cache.
 */
import { register } from 'node:module'
import { isMainThread } from 'node:worker_threads'

// This file is both the `--import` entry (main thread) and the hooks module (the loader's thread).
if (isMainThread) {
  const hidden = (process.env.HIDE_PACKAGES ?? '').split(',').filter((name) => name !== '')
  register(import.meta.url, { data: { hidden } })
}

let hidden = []

export function initialize (data) {
  hidden = data.hidden
}

export async function resolve (specifier, context, next) {
  const [scope = '', name = ''] = specifier.split('/')
  const packageName = scope.startsWith('@') ? `${scope}/${name}` : scope
  if (hidden.includes(packageName)) {
    const error = new Error(`Cannot find package '${packageName}' imported from ${context.parentURL ?? 'the command line'} (hidden by test/helpers/hide-packages.mjs)`)
    error.code = 'ERR_MODULE_NOT_FOUND'
    throw error
  }
  return await next(specifier, context)
}
