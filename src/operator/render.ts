import { OptionError } from '../base/errors.ts'
import { boolean, checkOptions, listOf, object, required, secret, text, type OptionRules } from '../base/option-rules.ts'
import { yamlText } from './yaml-text.ts'
import { parseAuthSection } from '../config/auth-config.ts'
import { ConfigError } from '../config/errors.ts'
import { envVarNameProblem } from '../config/env-var-name.ts'
import { describeValue } from '../base/describe-value.ts'
import { readYamlSource, type FeatureStoreSource } from '../config/feature-store-file.ts'
import { kubernetesRbac, oidcRbac, serviceAccountName, type KubeObject } from './rbac.ts'
import { readOidcSecret, type OidcSecretValues } from './secret.ts'
import { didYouMean } from '../base/did-you-mean.ts'
import { DNS_SUBDOMAIN, isNamespaceName, isRbacName, isStoreName } from './kube-names.ts'

/** Where the operator mounts `caCertConfigMap` in server pods; `ca_cert_path` points there. */
export const OIDC_CA_CERT_PATH = '/etc/pki/tls/oidc-ca/ca.crt'

/** Where the client pod mounts its projected, audience-bound token; the client's `token_path`. */
export const CLIENT_TOKEN_PATH = '/var/run/secrets/feast-authz/token'
/** Lifetime asked of the projected token; the kubelet renews it at 80 % of that. */
export const CLIENT_TOKEN_EXPIRATION_SECONDS = 3600

/** The audience of one deployment's tokens: unique per FeatureStore, so a token for one is refused by another. */
export function deploymentAudience (namespace: string, name: string): string {
  return `feast-authz:${namespace}:${name}`
}

/** Options of {@link renderFeatureStore}. */
export interface RenderOptions {
  /** Secrets that `spec.authz.oidc.secretRef` may name (parsed objects). */
  readonly secrets?: ReadonlyArray<{ readonly object: Record<string, unknown>, readonly source?: string | undefined }>
  /**
   * A `feature_store.yaml` to complete (registry, online store...): its `project` and `auth`
   * are replaced. Default: a file with only `project` and `auth`.
   */
  readonly base?: Readonly<Record<string, unknown>>
  /**
   * Kubernetes mode: emit the Feast operator's RBAC objects (which also grant cluster-wide reads
   * of namespaces, cluster roles and bindings that feast-authz never makes) instead of the
   * minimal ones. Default false. See {@link KubernetesRbacOptions}.
   */
  readonly feastCompatibleRbac?: boolean | undefined
}

/** The rules of {@link RenderOptions}: a Secret's values are never shown in a message. */
const RENDER_OPTION_RULES: OptionRules = {
  secrets: secret(listOf(object({ object: required(object()), source: text() }))),
  base: object(),
  feastCompatibleRbac: boolean()
}

/** What a FeatureStore resource becomes. */
export interface RenderedFeatureStore {
  /** The `auth` section of every server's `feature_store.yaml` (with the Secret's credentials). */
  readonly server: Record<string, unknown>
  /** The `auth` section of a client's `feature_store.yaml`: never a credential. */
  readonly client: Record<string, unknown>
  /** The whole server `feature_store.yaml`, base64, for `FEATURE_STORE_YAML_BASE64` / the chart value. */
  readonly feature_store_yaml_base64: string
  /** The RBAC objects the chosen mode needs (Role, RoleBinding, ClusterRole, ClusterRoleBinding). */
  readonly rbac: KubeObject[]
  /**
   * Kubernetes mode: what a client pod's spec needs so that the client section works: a
   * projected `serviceAccountToken` volume with the deployment's audience and an expiry, and
   * its mount at {@link CLIENT_TOKEN_PATH}. Empty in the other modes.
   */
  readonly clientPod: { readonly volumes: KubeObject[], readonly volumeMounts: KubeObject[] }
  /** Things to tell the person deploying (e.g. `noAuth: true`); the CLI prints them on stderr. */
  readonly warnings: string[]
}

type Authz =
  | { readonly kind: 'kubernetes', readonly roles: readonly string[] }
  | { readonly kind: 'no_auth' }
  | { readonly kind: 'oidc', readonly oidc: Record<string, unknown> }

const PROJECT = /^[A-Za-z0-9][A-Za-z0-9_-]*$/
const CONFIG_MAP_KEY = /^[-._a-zA-Z0-9]+$/
const OIDC_FIELDS = ['secretRef', 'issuerUrl', 'secretKeyName', 'tokenEnvVar', 'verifySSL', 'caCertConfigMap', 'jwksCacheLifespanSeconds', 'jwksRequestTimeoutSeconds']

/**
 * Turns a `FeatureStore` resource (`<group>/v1`) into the server and client `auth` sections,
 * the server's `feature_store_yaml_base64`, and the RBAC objects, as the Feast operator would:
 *
 * - `spec.authz` absent, or `kubernetes: {}` → `kubernetes` (with `roles` → one Role each);
 * - `noAuth: true` → `no_auth`, with a warning;
 * - `oidc` → `oidc` with the settings of the Secret named by `secretRef.name`.
 *
 * Throws {@link ConfigError} naming the field (and line, for YAML text) on anything invalid.
 * The Secret's credentials appear only in `server` and `feature_store_yaml_base64`.
 *
 * WARNING: `noAuth: true` renders a server that serves anyone who can reach it; and
 * `feature_store_yaml_base64` holds the Secret's credentials, so store it as a Secret, not a ConfigMap.
 *
 * @example
 * ```ts
 * import { renderFeatureStore } from 'feast-authz'
 * const rendered = renderFeatureStore('./featurestore.yaml', { secrets: [{ object: oidcSecret }] })
 * for (const warning of rendered.warnings) console.warn(warning)
 * process.env.FEATURE_STORE_YAML_BASE64 = rendered.feature_store_yaml_base64
 * ```
 */
export function renderFeatureStore (resource: FeatureStoreSource, options: RenderOptions = {}): RenderedFeatureStore {
  // readYamlSource would fall back to FEATURE_STORE_YAML_BASE64: a resource must be given.
  if (resource === undefined) throw new OptionError('renderFeatureStore needs a FeatureStore resource (path, YAML text or object)')
  checkOptions(options, RENDER_OPTION_RULES, { owner: 'renderFeatureStore' })
  const file = readYamlSource(resource, { kind: 'a FeatureStore resource', what: 'the FeatureStore resource' })
  const fail = (path: string[], message: string): never => {
    const pos = file.locate(path)
    throw new ConfigError(message, { source: file.source, field: path.join('.'), line: pos?.line, column: pos?.column })
  }
  const data = file.data
  // The Secret in place of the resource (the two files sit side by side): say where it goes.
  if (data.kind === 'Secret') fail(['kind'], 'expected FeatureStore, got "Secret": a Secret that spec.authz.oidc.secretRef names is passed with --secret')
  const apiVersion = data.apiVersion
  if (typeof apiVersion !== 'string' || !/^[a-z0-9.-]+\.[a-z0-9-]+\/v1$/.test(apiVersion)) {
    fail(['apiVersion'], `expected <group>/v1 (e.g. feast.dev/v1), got ${describeValue(apiVersion)}`)
  }
  if (data.kind !== 'FeatureStore') fail(['kind'], `expected FeatureStore, got ${describeValue(data.kind)}`)
  const metadata = mapping(data.metadata, ['metadata'], fail)
  const name = metadata.name
  // Every RBAC object carries the name as a label value, which Kubernetes holds to 63 characters.
  if (!isStoreName(name)) {
    fail(['metadata', 'name'], `expected a lower-case DNS name of at most 63 characters (the RBAC objects carry it as the label feast.dev/name), got ${describeValue(name)}`)
  }
  const warnings: string[] = []
  let namespace = metadata.namespace
  if (namespace === undefined) {
    namespace = 'default'
    warnings.push('metadata.namespace is not set: the RBAC objects use namespace "default"')
  } else if (!isNamespaceName(namespace)) {
    fail(['metadata', 'namespace'], `expected a namespace name, got ${describeValue(namespace)}`)
  }
  const spec = mapping(data.spec, ['spec'], fail)
  const project = projectOf(spec, fail)
  const authz = authzOf(spec, name as string, fail)

  let server: Record<string, unknown>
  let client: Record<string, unknown>
  let rbac: KubeObject[]
  let clientPod: RenderedFeatureStore['clientPod'] = { volumes: [], volumeMounts: [] }
  switch (authz.kind) {
    case 'kubernetes': {
      // Each deployment's own audience: a token for it works nowhere else, not even on the API server.
      const audience = deploymentAudience(namespace as string, name as string)
      server = { type: 'kubernetes', audiences: [audience] }
      client = { type: 'kubernetes', token_path: CLIENT_TOKEN_PATH }
      clientPod = clientTokenVolume(audience)
      rbac = kubernetesRbac(name as string, namespace as string, authz.roles, { feastCompatible: options.feastCompatibleRbac })
      break
    }
    case 'no_auth':
      server = { type: 'no_auth' }
      client = { type: 'no_auth' }
      rbac = []
      warnings.push('spec.authz.noAuth is true: authentication and authorization are OFF and every endpoint is public (development and testing only)')
      break
    case 'oidc': {
      const rendered = renderOidc(authz.oidc, namespace as string, options, fail)
      server = rendered.server
      client = rendered.client
      warnings.push(...rendered.warnings)
      rbac = oidcRbac(name as string, namespace as string)
      break
    }
  }
  checkRendered(server, 'server', file.source)
  checkRendered(client, 'client', file.source)
  const whole = { ...options.base, project, auth: server }
  return {
    server,
    client,
    feature_store_yaml_base64: Buffer.from(yamlText(whole), 'utf8').toString('base64'),
    rbac,
    clientPod,
    warnings
  }
}

/** The projected token volume (and its mount) of a client pod, for `audience`. */
function clientTokenVolume (audience: string): RenderedFeatureStore['clientPod'] {
  const slash = CLIENT_TOKEN_PATH.lastIndexOf('/')
  return {
    volumes: [{
      name: 'feast-authz-token',
      projected: {
        sources: [{ serviceAccountToken: { audience, expirationSeconds: CLIENT_TOKEN_EXPIRATION_SECONDS, path: CLIENT_TOKEN_PATH.slice(slash + 1) } }]
      }
    }],
    volumeMounts: [{ name: 'feast-authz-token', mountPath: CLIENT_TOKEN_PATH.slice(0, slash), readOnly: true }]
  }
}

type Fail = (path: string[], message: string) => never

function mapping (value: unknown, path: string[], fail: Fail): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(path, `expected a mapping, got ${describeValue(value)}`)
  return value as Record<string, unknown>
}

/**
 * Refuses a field the resource schema does not have (the API server refuses or drops it), with
 * a guess at the known name meant, unless `guess` is off: where the one known name is a prefix
 * of a common other field (`namespace` beside `name`), a guess would mislead.
 */
function onlyFields (value: Record<string, unknown>, known: readonly string[], path: string[], fail: Fail, { noun = 'field', guess = true } = {}): void {
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue
    fail([...path, key], `unknown ${noun}${guess ? didYouMean(key, known) : ''}: expected ${known.length === 1 ? known[0] as string : `one of ${known.join(', ')}`}`)
  }
}

/** `spec.feastProject` (the Feast operator's field) or `spec.serviceProject` (the spec's name); equal if both. */
function projectOf (spec: Record<string, unknown>, fail: Fail): string {
  const feast = spec.feastProject
  const service = spec.serviceProject
  if (feast !== undefined && service !== undefined && feast !== service) {
    fail(['spec', 'serviceProject'], `differs from spec.feastProject (${describeValue(feast)}): set one of them`)
  }
  const field = feast !== undefined ? 'feastProject' : 'serviceProject'
  const value = feast ?? service
  if (value === undefined) fail(['spec'], 'missing the project name: set spec.feastProject (or spec.serviceProject)')
  if (typeof value !== 'string' || !PROJECT.test(value)) fail(['spec', field], `expected a project name of letters, digits, _ and -, got ${describeValue(value)}`)
  return value as string
}

function authzOf (spec: Record<string, unknown>, name: string, fail: Fail): Authz {
  // Absent: Kubernetes auth, as the operator defaults it (spec 5.6.1).
  if (spec.authz === undefined || spec.authz === null) return { kind: 'kubernetes', roles: [] }
  const authz = mapping(spec.authz, ['spec', 'authz'], fail)
  onlyFields(authz, ['kubernetes', 'oidc', 'noAuth'], ['spec', 'authz'], fail, { noun: 'member' })
  if (authz.noAuth !== undefined && typeof authz.noAuth !== 'boolean') fail(['spec', 'authz', 'noAuth'], `expected true or false, got ${describeValue(authz.noAuth)}`)
  const chosen = [
    authz.kubernetes !== undefined ? 'kubernetes' : undefined,
    authz.oidc !== undefined ? 'oidc' : undefined,
    authz.noAuth === true ? 'noAuth' : undefined
  ].filter((member) => member !== undefined)
  if (chosen.length !== 1) {
    fail(['spec', 'authz'], `set exactly one of kubernetes, oidc or noAuth: true, got ${chosen.length === 0 ? 'none' : chosen.join(' and ')}`)
  }
  if (chosen[0] === 'noAuth') return { kind: 'no_auth' }
  if (chosen[0] === 'oidc') return { kind: 'oidc', oidc: mapping(authz.oidc, ['spec', 'authz', 'oidc'], fail) }
  const kubernetes = mapping(authz.kubernetes, ['spec', 'authz', 'kubernetes'], fail)
  onlyFields(kubernetes, ['roles'], ['spec', 'authz', 'kubernetes'], fail)
  const roles = kubernetes.roles ?? []
  if (!Array.isArray(roles)) fail(['spec', 'authz', 'kubernetes', 'roles'], `expected a list of Role names, got ${describeValue(roles)}`)
  // The API server's rule for a Role's name (kubernetesRbac's too), as the Feast operator passes
  // the names on unchecked: Feast roles such as feast_reader are not DNS names, and are fine.
  for (const [index, role] of (roles as unknown[]).entries()) {
    if (!isRbacName(role)) fail(['spec', 'authz', 'kubernetes', 'roles'], `item ${index}: expected a Role's name (not empty, . or .., without / or %), got ${describeValue(role)}`)
  }
  const own = serviceAccountName(name)
  if ((roles as string[]).includes(own)) {
    // Both would be one object: the store's Role would lose the rules the service needs.
    fail(['spec', 'authz', 'kubernetes', 'roles'], `"${own}" is the name of the store's own Role (the one that lets the service read RoleBindings): give this Feast role another name`)
  }
  return { kind: 'kubernetes', roles: [...new Set(roles as string[])] }
}

function renderOidc (
  oidc: Record<string, unknown>,
  namespace: string,
  options: RenderOptions,
  fail: Fail
): { server: Record<string, unknown>, client: Record<string, unknown>, warnings: string[] } {
  const at = (...path: string[]): string[] => ['spec', 'authz', 'oidc', ...path]
  onlyFields(oidc, OIDC_FIELDS, at(), fail)
  const optionalString = (key: string): string | undefined => {
    const value = oidc[key]
    if (value === undefined) return undefined
    if (typeof value !== 'string' || value.trim() === '') fail(at(key), `expected a non-empty string, got ${describeValue(value)}`)
    return value as string
  }
  const seconds = (key: string): number | undefined => {
    const value = oidc[key]
    if (value === undefined) return undefined
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) fail(at(key), `expected a whole number of seconds >= 1, got ${describeValue(value)}`)
    return value as number
  }
  const warnings: string[] = []
  const issuerUrl = optionalString('issuerUrl')
  if (issuerUrl !== undefined && !/^https:\/\/\S+$/.test(issuerUrl)) fail(at('issuerUrl'), `expected an https:// URL, got ${describeValue(issuerUrl)}`)
  const secretKeyName = optionalString('secretKeyName')
  const tokenEnvVar = optionalString('tokenEnvVar')
  // The client's token_env_var, checked here by the loader's rule so that the error names this field.
  const tokenEnvVarProblem = tokenEnvVar === undefined ? undefined : envVarNameProblem(tokenEnvVar)
  if (tokenEnvVarProblem !== undefined) fail(at('tokenEnvVar'), tokenEnvVarProblem)
  if (oidc.verifySSL !== undefined && typeof oidc.verifySSL !== 'boolean') fail(at('verifySSL'), `expected true or false, got ${describeValue(oidc.verifySSL)}`)

  let secretValues: OidcSecretValues = {}
  if (oidc.secretRef !== undefined) {
    const ref = mapping(oidc.secretRef, at('secretRef'), fail)
    onlyFields(ref, ['name'], at('secretRef'), fail, { guess: false })
    const secretName = ref.name
    if (typeof secretName !== 'string' || !DNS_SUBDOMAIN.test(secretName)) fail(at('secretRef', 'name'), `expected a Secret name, got ${describeValue(secretName)}`)
    // The operator reads the Secret of the store's namespace: one of the same name elsewhere (a dump
    // of several namespaces) holds another deployment's settings. A Secret written without a
    // namespace is taken to be for this one.
    const elsewhere = (object: Record<string, unknown>): unknown => {
      const found = (object.metadata as { namespace?: unknown } | undefined)?.namespace
      return found !== undefined && found !== namespace ? found : undefined
    }
    const found = (options.secrets ?? []).find(({ object }) => object.kind === 'Secret' && (object.metadata as { name?: unknown } | undefined)?.name === secretName && elsewhere(object) === undefined)
    if (found === undefined) {
      // A document of another kind (the FeatureStore itself, given as --secret) is named with its kind: it was looked at, and is not a Secret.
      const given = (options.secrets ?? []).flatMap(({ object }) => {
        const named = (object.metadata as { name?: unknown } | undefined)?.name
        if (typeof named !== 'string') return []
        if (object.kind !== 'Secret') return [`"${named}" (kind ${describeValue(object.kind)}, not a Secret)`]
        const other = elsewhere(object)
        return [other === undefined ? `"${named}"` : `"${named}" (namespace ${describeValue(other)}, not "${namespace}")`]
      })
      fail(at('secretRef', 'name'), `names Secret "${secretName as string}", which was not given${given.length === 0 ? ' (pass it with --secret)' : ` (given: ${given.join(', ')})`}`)
    }
    secretValues = readOidcSecret((found as { object: Record<string, unknown> }).object, { source: found?.source, secretKeyName })
  } else if (secretKeyName !== undefined) {
    fail(at('secretKeyName'), 'needs secretRef.name: the key is looked up in that Secret')
  }

  const discovery = issuerUrl !== undefined
    ? `${issuerUrl.replace(/\/+$/, '')}/.well-known/openid-configuration`
    : secretValues.auth_discovery_url
  if (discovery === undefined) {
    fail(at(), 'no OIDC discovery URL: set issuerUrl, or put auth_discovery_url in the Secret named by secretRef.name')
  }
  const server: Record<string, unknown> = { type: 'oidc', auth_discovery_url: discovery }
  for (const key of ['client_id', 'client_secret', 'username', 'password', 'audience', 'issuer'] as const) {
    if (secretValues[key] !== undefined) server[key] = secretValues[key]
  }
  if (oidc.verifySSL !== undefined) server.verify_ssl = oidc.verifySSL
  if (oidc.verifySSL === false) warnings.push('spec.authz.oidc.verifySSL is false: servers will not verify the identity provider\'s TLS certificate (development only)')
  if (oidc.caCertConfigMap !== undefined) {
    const configMap = mapping(oidc.caCertConfigMap, at('caCertConfigMap'), fail)
    onlyFields(configMap, ['name', 'key'], at('caCertConfigMap'), fail)
    // As Kubernetes names them (it refuses a pod mounting anything else): the names also reach the warning below, one line on a terminal.
    if (typeof configMap.name !== 'string' || !DNS_SUBDOMAIN.test(configMap.name) || configMap.name.length > 253) {
      fail(at('caCertConfigMap', 'name'), `expected a ConfigMap name (a lower-case DNS name), got ${describeValue(configMap.name)}`)
    }
    if (configMap.key !== undefined && (typeof configMap.key !== 'string' || !CONFIG_MAP_KEY.test(configMap.key) || configMap.key.length > 253 || /^\.\.?$/.test(configMap.key))) {
      fail(at('caCertConfigMap', 'key'), `expected a ConfigMap key (letters, digits, -, _ and .), got ${describeValue(configMap.key)}`)
    }
    server.ca_cert_path = OIDC_CA_CERT_PATH
    warnings.push(`ca_cert_path is ${OIDC_CA_CERT_PATH}: mount key "${(configMap.key as string | undefined) ?? 'ca-bundle.crt'}" of ConfigMap "${configMap.name as string}" there in every server pod`)
  }
  const lifespan = seconds('jwksCacheLifespanSeconds')
  if (lifespan !== undefined) server.jwks_cache_lifespan_seconds = lifespan
  const timeout = seconds('jwksRequestTimeoutSeconds')
  if (timeout !== undefined) server.jwks_request_timeout_seconds = timeout
  if (server.client_id === undefined) {
    // Our servers read roles from resource_access.<client_id>: a server without it refuses to start.
    fail(at('secretRef', 'name'), 'the Secret has no client_id: OIDC servers need it to read roles from resource_access.<client_id>')
  }
  return { server, client: tokenEnvVar === undefined ? { type: 'oidc' } : { type: 'oidc', token_env_var: tokenEnvVar }, warnings }
}

/** The rendered sections must load with our own loader, or servers and clients would refuse them. */
function checkRendered (auth: Record<string, unknown>, role: 'server' | 'client', source: string | undefined): void {
  try {
    parseAuthSection({ data: { auth }, source: `rendered ${role} auth`, locate: () => undefined }, role)
  } catch (error) {
    throw new ConfigError(`the resource renders an invalid ${role} auth section: ${(error as Error).message}`, { source }, error)
  }
}
