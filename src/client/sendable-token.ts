import { characterName } from '../base/character-name.ts'
import { TokenSourceError } from './errors.ts'

/**
 * Throws `TokenSourceError('malformed_token')` unless `token` can travel in an
 * `Authorization: Bearer` header: visible ASCII characters only. `fetch` refuses a header value
 * with a line break in a `TypeError` whose message is the whole value, token included, and
 * applications log such messages; a token that was wrapped when copied, or two tokens in one file,
 * must fail here, naming where the token came from (`from`) and never showing it.
 */
export function checkSendableToken (token: string, from: string): void {
  for (let i = 0; i < token.length; i++) {
    const code = token.charCodeAt(i)
    if (code > 0x20 && code < 0x7f) continue
    const lineBreak = code === 0x0a || code === 0x0d
    throw new TokenSourceError('malformed_token', `the token from ${from} cannot be sent in an Authorization header: ` +
      `its character ${i + 1} of ${token.length} is ${characterName(code)}, and a bearer token holds visible ASCII characters only` +
      (lineBreak ? ' (a token wrapped when copied has line breaks inside: put it on one line)' : ''))
  }
}
