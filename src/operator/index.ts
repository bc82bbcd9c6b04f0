export { renderFeatureStore, OIDC_CA_CERT_PATH, type RenderOptions, type RenderedFeatureStore } from './render.ts'
export { kubernetesRbac, oidcRbac, serviceAccountName, type KubeObject, type KubernetesRbacOptions } from './rbac.ts'
export { readOidcSecret, OIDC_SECRET_KEYS, type OidcSecretValues } from './secret.ts'
