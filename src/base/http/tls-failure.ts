// OpenSSL's verdicts on a certificate chain that ends at no CA the client trusts.
const UNTRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_UNTRUSTED'
])

/**
 * What a network error's `code` says about TLS: `untrusted` when the server's certificate was
 * signed by no CA the client trusts (the usual fix is to give the client that CA), `other` for
 * any other TLS failure (expired certificate, another host name, a failed handshake), and
 * undefined when the error is not about TLS.
 */
export function tlsFailureOf (code: string | undefined): 'untrusted' | 'other' | undefined {
  if (code === undefined) return undefined
  if (UNTRUSTED.has(code)) return 'untrusted'
  return /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/.test(code) ? 'other' : undefined
}
