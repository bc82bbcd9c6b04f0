/** A token provider for client tests that need to control which token is handed out and when. */
import type { TokenProvider } from '../../src/client/token-provider.ts'

/** A provider whose `invalidated` counts the tokens dropped. */
export type ScriptedProvider = TokenProvider & { invalidated: number }

/**
 * Hands out `tokens` in turn (the last repeats), moving on when a token is invalidated or, with
 * `advance: 'every-call'`, at every call (as a cache does when the token expired meanwhile).
 */
export function scriptedProvider (tokens: string[], options: { type?: TokenProvider['type'], advance?: 'on-invalidate' | 'every-call' } = {}): ScriptedProvider {
  const { type = 'oidc', advance = 'on-invalidate' } = options
  let index = 0
  const next = (): string => {
    const token = tokens[Math.min(index, tokens.length - 1)] as string
    if (advance === 'every-call') index++
    return token
  }
  const provider: ScriptedProvider = {
    type,
    invalidated: 0,
    resolve: async () => type === 'no_auth' ? undefined : { token: next(), source: 'token' as const },
    getToken: async () => (await provider.resolve())?.token,
    invalidate: () => { provider.invalidated++; index++; return true },
    close: () => {}
  }
  return provider
}
