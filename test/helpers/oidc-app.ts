/**
 * The OIDC-app fixture: a real OpenID provider (test/helpers/oidc-provider.ts) and a real Fastify
 * server with the plugin validating its tokens (test/helpers/authz-app.ts), started and closed
 * together. `startOidcApp` for one test, `useOidcApp` for every test of a suite.
 */
import { after, before } from 'node:test'
import { oidcAuth, startApp, type StartAppOptions, type TestApp } from './authz-app.ts'
import { startOidcProvider, type IssueOptions, type StartOidcProviderOptions, type TestProvider } from './oidc-provider.ts'

/** Options of {@link startOidcApp} and {@link useOidcApp}. */
export interface OidcAppOptions extends Omit<StartAppOptions, 'auth'> {
  /** How the provider is started (algorithm, HTTPS, users, issuer). Default: RS256 over plain HTTP. */
  readonly provider?: StartOidcProviderOptions
  /** Fields added to (or replacing) the `auth` section {@link oidcAuth} builds for the provider. */
  readonly auth?: Record<string, unknown>
}

/** A provider and a server trusting it. */
export interface OidcApp extends TestApp {
  readonly provider: TestProvider
  /** A real access token from the provider; `claims` default to `{ preferred_username: 'alice' }`. */
  token (claims?: Record<string, unknown>, options?: IssueOptions): Promise<string>
  /** Closes the server, then the provider. */
  close (): Promise<void>
}

/** Starts a provider, then a server whose `auth` section points at it. */
export async function startOidcApp (options: OidcAppOptions = {}): Promise<OidcApp> {
  const { provider: providerOptions, auth, ...app } = options
  const provider = await startOidcProvider(providerOptions)
  let started: TestApp
  try {
    started = await startApp({ ...app, auth: oidcAuth(provider, auth) })
  } catch (error) {
    await provider.close()
    throw error
  }
  return {
    ...started,
    provider,
    token: async (claims = { preferred_username: 'alice' }, issue) => await provider.issue(claims, issue),
    close: async () => {
      try { await started.close() } finally { await provider.close() }
    }
  }
}

/**
 * Starts an {@link OidcApp} before the tests of the surrounding suite (or file) and closes it after
 * them. The object it returns stands for that app; use it inside tests and hooks only.
 */
export function useOidcApp (options: OidcAppOptions = {}): OidcApp {
  let started: OidcApp | undefined
  const current = (): OidcApp => {
    if (started === undefined) throw new Error('useOidcApp: the app is started in the suite\'s before hook; use it inside a test')
    return started
  }
  before(async () => { started = await startOidcApp(options) })
  after(async () => { await started?.close() })
  return {
    get app () { return current().app },
    get url () { return current().url },
    get logs () { return current().logs },
    get provider () { return current().provider },
    call: async (...args) => await current().call(...args),
    token: async (...args) => await current().token(...args),
    close: async () => { await current().close() }
  }
}
