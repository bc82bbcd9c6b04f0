import { describeValue } from './describe-value.ts'
import { didYouMean } from './did-you-mean.ts'

/**
 * Whether text a person typed where a name or a path goes may be a credential pasted in the wrong
 * place: `--token-file "$TOKEN"`, `--config eyJ...`, `--action ghp_...`. Error messages quote what
 * was wrong, and they end up in terminals, CI logs and issue reports; text of this shape is told
 * by its length instead.
 *
 * The shape: a piece between slashes longer than 64 characters (a JWT, a base64 blob; no file or
 * directory name a person types is that long), or a run of 20 or more ASCII letters and digits
 * holding both (random tokens: `ghp_` + 36, `AKIA` + 16, `ya29.` + ...). Names and paths people
 * type break such runs with `_`, `-`, `.` or `/` (`driver_hourly_stats`, `feature_store.yaml`,
 * `READ_ONLINE`). A name of that shape is then not shown: the message still says what was wrong.
 */
export function mayBeCredential (text: string): boolean {
  if (text.split('/').some((piece) => piece.length > 64)) return true
  return (text.match(/[A-Za-z0-9]{20,}/g) ?? []).some((run) => /[A-Za-z]/.test(run) && /[0-9]/.test(run))
}

/**
 * `text` quoted as `describeValue` quotes it (shortened past 60 characters), or, when it
 * {@link mayBeCredential may be a credential}, its length and why it is not shown.
 */
export function quotedUnlessCredential (text: string): string {
  return mayBeCredential(text) ? `a string of ${text.length} characters (not shown: it may be a token)` : describeValue(text)
}

/**
 * A name that matched nothing, for an error: {@link quotedUnlessCredential}, then the nearest of
 * `known` (` (did you mean X?)`) unless the name may be a credential, which is never guessed at
 * (the guess would tell what it is close to).
 */
export function unmatchedName (name: string, known: readonly string[]): string {
  return mayBeCredential(name) ? quotedUnlessCredential(name) : `${describeValue(name)}${didYouMean(name, known)}`
}

/**
 * A path for a message about a file that could not be read: the path as given, or, when it
 * {@link mayBeCredential may be a credential}, its length and why it is not shown. (A file that
 * was read is named as it is: it exists.)
 */
export function pathForMessage (path: string): string {
  return mayBeCredential(path) ? `<a path of ${path.length} characters, not shown: it may be a token>` : path
}
