/**
 * `$NAME` and `${NAME}` in the text of a feature_store.yaml, replaced as Feast replaces them:
 * Feast reads the file through Python's `os.path.expandvars` before YAML sees it (`load_repo_config`,
 * also for FEATURE_STORE_YAML_BASE64, which Feast writes to a file first). So `client_secret:
 * ${OIDC_CLIENT_SECRET}` is the variable's value, and a file written for Feast reads the same here.
 *
 * The rules are Python's: a name is ASCII letters, digits and `_` after `$`, or anything up to the
 * next `}` inside `${...}`; a variable that is not set leaves the reference as written (no error,
 * as in Feast); a value is inserted as is, never scanned again. Nothing else is special: no
 * `$$` escape, no defaults (`${X:-y}` names the variable `X:-y`).
 */

/** The text with its references replaced, and the way back to the written text for error positions. */
export interface ExpandedText {
  readonly text: string
  /** The offset in the written text of an offset in `text`; inside an inserted value, the `$` of its reference. */
  writtenOffset (offset: number): number
  /** Where references to variables that are not set start in the written text (kept as written). */
  readonly unset: readonly number[]
}

const REFERENCE = /\$([A-Za-z0-9_]+|\{[^}]*\})/g

export function expandEnvReferences (written: string, env: NodeJS.ProcessEnv): ExpandedText {
  // Each replacement: where its value starts in the new text, how long it is, and the reference it replaced.
  const replaced: Array<{ readonly at: number, readonly length: number, readonly writtenAt: number, readonly writtenLength: number }> = []
  const unset: number[] = []
  let shift = 0
  const text = written.replace(REFERENCE, (reference: string, inner: string, writtenAt: number) => {
    const name = inner.startsWith('{') ? inner.slice(1, -1) : inner
    const value = Object.hasOwn(env, name) ? env[name] : undefined
    if (value === undefined) { unset.push(writtenAt); return reference }
    replaced.push({ at: writtenAt + shift, length: value.length, writtenAt, writtenLength: reference.length })
    shift += value.length - reference.length
    return value
  })
  return {
    text,
    unset,
    writtenOffset: (offset) => {
      let delta = 0
      for (const each of replaced) {
        if (offset < each.at) break
        if (offset < each.at + each.length) return each.writtenAt
        delta = each.writtenAt + each.writtenLength - (each.at + each.length)
      }
      return offset + delta
    }
  }
}
