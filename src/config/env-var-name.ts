import { characterName } from '../base/character-name.ts'
import { describeValue } from '../base/describe-value.ts'

/**
 * A name a shell can `export`, and that every platform passes on: letters, digits and `_`, not
 * starting with a digit (POSIX's portable names, which it writes in upper case; lower case works
 * everywhere too).
 */
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

const EXPECTED = 'expected the name of an environment variable (letters, digits and _, not starting with a digit)'

/**
 * Why `value` cannot be the name of an environment variable, as a whole "expected ..., got ..."
 * sentence; undefined when it can. A string that is no name is not shown, only its first wrong
 * character: what lands in this field by mistake is often the token itself.
 */
export function envVarNameProblem (value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return `${EXPECTED}, got ${describeValue(value)}`
  if (NAME.test(value)) return undefined
  // `$MY_TOKEN` or `${MY_TOKEN}`, as a shell would write the variable's value.
  const shell = /^\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))$/.exec(value)
  const bare = shell?.[1] ?? shell?.[2]
  if (bare !== undefined) return `expected the name of an environment variable, not a shell reference to it: write ${bare}, without $`
  // Not a name, so there is one: a leading digit, or a character no name holds.
  const wrong = value.search(/^[0-9]|[^A-Za-z0-9_]/)
  return `${EXPECTED}, got a string of ${value.length} characters whose character ${wrong + 1} is ${characterName(value.charCodeAt(wrong))}` +
    ' (not shown: a token itself goes under `token`, not here)'
}

/**
 * `name`, quoted, when it is written as variable names are by convention (upper case, digits,
 * `_`); otherwise undefined. A valid name in another case cannot be told from a token put in the
 * wrong field (`ghp_...`), so messages about the variable do not repeat it then.
 */
export function conventionalEnvVarName (name: string): string | undefined {
  return /^[A-Z][A-Z0-9_]{0,63}$/.test(name) ? name : undefined
}
