import type { AuthError } from '../base/errors.ts'
import type { AuthConfig } from '../config/auth-config.ts'
import { EXIT, type CliIo } from './io.ts'

/**
 * The whole report of a command that could not decide (exit 3): one line saying what failed
 * (discovery, the key set, a TokenReview) and why, with the URL as the error names it (never its
 * credentials), and one line saying what to check. The manager's own log lines say the same at
 * length, with stack traces: `--debug` shows them.
 */
export function reportUndecided (io: CliIo, command: string, error: AuthError, config: AuthConfig): typeof EXIT.undecided {
  const reason = error.cause instanceof Error ? `: ${error.cause.message}` : ''
  io.stderr(`feast-authz ${command}: could not decide: ${error.code}: ${error.message}${reason}\n  ${whatToCheck(error, config)}; --debug shows the details\n`)
  return EXIT.undecided
}

/** What to check when a request to an identity provider (discovery, keys, token endpoint) failed. */
export const CHECK_PROVIDER = 'check that this machine can reach that URL (DNS, proxy, firewall) and that the provider is up'

function whatToCheck (error: AuthError, config: AuthConfig): string {
  if (error.code === 'cluster_unavailable') return 'check that this machine can reach the API server of the kubeconfig (KUBECONFIG, else ~/.kube/config) and that it is up'
  const timeout = config.type === 'oidc' ? `; requests time out after jwks_request_timeout_seconds (${config.jwks_request_timeout_seconds} s)` : ''
  return `${CHECK_PROVIDER}${timeout}`
}
