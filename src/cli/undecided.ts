import type { AuthError } from '../base/errors.ts'
import { NotADiscoveryDocumentError } from '../base/http/discovery-document.ts'
import type { AuthConfig } from '../config/auth-config.ts'
import { ApiServerFailure, type ApiTarget } from '../managers/kubernetes/api-failure.ts'
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

/** What to do when the provider answered 429: it limits its clients, nothing is wrong with the URL or the network. */
export const PROVIDER_LIMITING = 'the provider is limiting its clients (HTTP 429, too many requests): try again later'

/** What to check when the discovery URL answered, but with no discovery document: the URL, not the network. */
export const CHECK_DISCOVERY_URL = "that URL answered, but with no discovery document: auth_discovery_url must be the provider's " +
  '/.well-known/openid-configuration (Keycloak: https://<host>/realms/<realm>/.well-known/openid-configuration), whose JSON names a jwks_uri and a token_endpoint; ' +
  'open it in a browser to compare'

const KUBECONFIG = 'the kubeconfig (KUBECONFIG, else ~/.kube/config)'

type FixHint = (server: string) => string

/** Where the settings of a failed connection are fixed: a kubeconfig's, or a pod's own. */
const WHERE_TO_FIX: Readonly<Record<ApiTarget['source'], { readonly reach: FixHint, readonly untrusted: FixHint, readonly tls: FixHint }>> = {
  kubeconfig: {
    reach: (server) => `check that this machine can reach ${server}, the API server of ${KUBECONFIG}, and that it is up`,
    untrusted: (server) => `the certificate of ${server} is signed by no CA that ${KUBECONFIG} trusts: check the certificate-authority (or certificate-authority-data) of its cluster`,
    tls: (server) => `check that the server address and certificate-authority of ${KUBECONFIG} match the certificate of ${server} (host name, expiry)`
  },
  'in-cluster': {
    reach: (server) => `check that this pod can reach ${server} (KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT; network policies) and that the API server is up`,
    untrusted: (server) => `the certificate of ${server} is signed by no CA in the ca.crt mounted with the pod's service account: check what stands between the pod and the API server (a proxy re-signing TLS)`,
    tls: (server) => `check that ${server} (KUBERNETES_SERVICE_HOST) is the API server the certificate names, and that the certificate is current`
  }
}

function whatToCheck (error: AuthError, config: AuthConfig): string {
  if (error.cause instanceof ApiServerFailure) return whatToCheckOnCluster(error.cause)
  // Only a queue of reviews waiting on the API server gets here: it was reached, so no
  // connection setting is to blame, and the hint must not guess whose they are.
  if (error.code === 'cluster_unavailable') return 'check that the Kubernetes API server is up and answering promptly, then try again'
  if (error.cause instanceof NotADiscoveryDocumentError) return CHECK_DISCOVERY_URL
  const timeout = config.type === 'oidc' ? `; requests time out after jwks_request_timeout_seconds (${config.jwks_request_timeout_seconds} s)` : ''
  return `${CHECK_PROVIDER}${timeout}`
}

/** Where to look, by how the call to the API server failed; the first line said which call. */
function whatToCheckOnCluster ({ target, failure }: ApiServerFailure): string {
  const server = target.server ?? 'the API server'
  const fix = WHERE_TO_FIX[target.source]
  const budget = `each call to it times out after ${duration(target.timeoutMs)} (requestTimeoutMs)`
  switch (failure.kind) {
    case 'forbidden':
      return `grant that permission to ${target.caller} on ${server} (docs/kubernetes.md#rbac-the-service-needs), or use credentials that have it`
    case 'unauthorized':
      return `${server} rejected the credentials of ${target.caller}: they expired or are for another cluster; get fresh ones`
    case 'timeout':
      return `${server} did not answer within ${duration(target.timeoutMs)} (requestTimeoutMs, the limit of each call and of a request's calls together): check that this machine can reach it (VPN, proxy, firewall) and that it is not overloaded`
    case 'untrusted-certificate':
      return fix.untrusted(server)
    case 'tls':
      return fix.tls(server)
    case 'http':
      return `check that ${server} is healthy (it answered ${failure.text}); ${budget}`
    case 'unusable':
      return `${server} answered, but not as the Kubernetes API does (${failure.text}): check what answers at that address (a proxy, a load balancer, an aggregated API in the way)`
    case 'network':
    case 'other':
      return `${fix.reach(server)}; ${budget}`
  }
}

function duration (ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`
}
