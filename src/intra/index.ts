export { INTRA_ENV, MIN_SECRET_BYTES, readIntraSecret, decodeIntraSecret } from './secret.ts'
export { mintIntraToken, verifyIntraToken, looksLikeIntraToken, INTRA_TOKEN_TYPE, INTRA_USERNAME, INTRA_TOKEN_LIFETIME_SECONDS } from './token.ts'
export { withIntraIdentity, INTRA_PRINCIPAL, isIntraPrincipal } from './with-intra-identity.ts'
