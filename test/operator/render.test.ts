import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import { parse } from 'yaml'
import { ConfigError } from '../../src/config/errors.ts'
import { hasFeastRoleMarker } from '../../src/base/feast-role-marker.ts'
import { CLIENT_TOKEN_PATH, deploymentAudience, renderFeatureStore, type RenderOptions } from '../../src/operator/render.ts'
import { kubernetesRbac } from '../../src/operator/rbac.ts'
import { startFakeKubeApi } from '../helpers/fake-kube-api.ts'

const fixture = (name: string): string => `fixtures/operator/${name}`
const secretFixture = (): NonNullable<RenderOptions['secrets']> => [{ object: parse(readFileSync(fixture('secret-oidc.yaml'), 'utf8')) as Record<string, unknown>, source: 'secret-oidc.yaml' }]

function store (authz: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'feast.dev/v1', kind: 'FeatureStore', metadata: { name: 'demo', namespace: 'feast' }, spec: { feastProject: 'demo_project', ...(authz === undefined ? {} : { authz }), ...extra } }
}

function secret (entries: { data?: Record<string, string>, stringData?: Record<string, string> }, name = 'oidc'): NonNullable<RenderOptions['secrets']> {
  const data = entries.data === undefined ? undefined : Object.fromEntries(Object.entries(entries.data).map(([key, value]) => [key, Buffer.from(value).toString('base64')]))
  return [{ object: { apiVersion: 'v1', kind: 'Secret', metadata: { name }, ...(data === undefined ? {} : { data }), ...(entries.stringData === undefined ? {} : { stringData: entries.stringData }) } }]
}

const OIDC_SECRET = { data: { auth_discovery_url: 'https://idp.example.com/.well-known/openid-configuration', client_id: 'feast' } }

function failsWith (resource: unknown, options: RenderOptions, message: RegExp): void {
  assert.throws(() => renderFeatureStore(resource as Record<string, unknown>, options), (error: unknown) => {
    assert.ok(error instanceof ConfigError)
    assert.match(error.message, message)
    return true
  })
}

describe('operator render: spec.authz forms', () => {
  it('renders kubernetes for server and client when spec.authz is absent, with the deployment\'s own audience on both sides', () => {
    const rendered = renderFeatureStore(fixture('featurestore-default.yaml'))
    const audience = deploymentAudience('feast', 'sample')
    assert.deepEqual([rendered.server, rendered.client], [{ type: 'kubernetes', audiences: [audience] }, { type: 'kubernetes', token_path: CLIENT_TOKEN_PATH }])
    assert.deepEqual(rendered.clientPod, {
      volumes: [{ name: 'feast-authz-token', projected: { sources: [{ serviceAccountToken: { audience, expirationSeconds: 3600, path: 'token' } }] } }],
      volumeMounts: [{ name: 'feast-authz-token', mountPath: '/var/run/secrets/feast-authz', readOnly: true }]
    })
  })

  it('gives two deployments different audiences, so a token for one is refused by the other', () => {
    const other = store(undefined)
    ;(other.metadata as { name: string }).name = 'other'
    assert.notDeepEqual(renderFeatureStore(store(undefined)).server, renderFeatureStore(other).server)
  })

  it('renders no client pod additions outside kubernetes mode', () => {
    assert.deepEqual(renderFeatureStore(fixture('featurestore-noauth.yaml')).clientPod, { volumes: [], volumeMounts: [] })
  })

  it('renders authz.kubernetes: {} exactly like an absent authz', () => {
    assert.deepEqual(renderFeatureStore(store({ kubernetes: {} })), renderFeatureStore(store(undefined)))
  })

  it('renders noAuth: true as no_auth with a warning that every endpoint is public', () => {
    const rendered = renderFeatureStore(fixture('featurestore-noauth.yaml'))
    assert.deepEqual([rendered.server, rendered.client, rendered.rbac], [{ type: 'no_auth' }, { type: 'no_auth' }, []])
    assert.match(rendered.warnings.join('\n'), /every endpoint is public/)
  })

  it('renders oidc with the settings of the named Secret: data decoded, stringData merged, other keys ignored', () => {
    const rendered = renderFeatureStore(fixture('featurestore-oidc.yaml'), { secrets: secretFixture() })
    assert.deepEqual(rendered.server, {
      type: 'oidc',
      auth_discovery_url: 'https://keycloak.example.com/realms/feast/.well-known/openid-configuration',
      client_id: 'feast-client',
      client_secret: 'sample-client-secret',
      audience: 'feast-api',
      issuer: 'https://keycloak.example.com/realms/feast'
    })
  })

  it('refuses a tokenEnvVar that is no environment-variable name, naming the field, as the client would refuse its token_env_var', () => {
    failsWith(store({ oidc: { secretRef: { name: 'oidc' }, tokenEnvVar: 'FEAST-TOKEN' } }), { secrets: secret(OIDC_SECRET) },
      /spec\.authz\.oidc\.tokenEnvVar: expected the name of an environment variable \(letters, digits and _, not starting with a digit\), got a string of 11 characters whose character 6 is "-"/)
  })

  it('refuses a discovery URL from the Secret that is not http(s) without showing its userinfo', () => {
    const url = 'htps://feast:do-not-print-me@idp.example.com/.well-known/openid-configuration'
    failsWith(store({ oidc: { secretRef: { name: 'oidc' } } }), { secrets: secret({ data: { auth_discovery_url: url, client_id: 'feast' } }) },
      /auth\.auth_discovery_url: expected an http\(s\) URL, got "htps:\/\/idp\.example\.com\/\.well-known\/openid-configuration"$/)
  })

  it('gives the oidc client only its type and token_env_var: never a credential', () => {
    const rendered = renderFeatureStore(fixture('featurestore-oidc.yaml'), { secrets: secretFixture() })
    assert.deepEqual(rendered.client, { type: 'oidc', token_env_var: 'FEAST_USER_TOKEN' })
    assert.doesNotMatch(JSON.stringify([rendered.client, rendered.rbac, rendered.warnings]), /sample-client-secret/)
  })

  it('reads username and password for the password grant', () => {
    const rendered = renderFeatureStore(store({ oidc: { secretRef: { name: 'oidc' } } }), { secrets: secret({ data: { ...OIDC_SECRET.data, client_secret: 'cs', username: 'svc', password: 'pw' } }) })
    assert.equal(rendered.server.username, 'svc')
    assert.equal(rendered.server.password, 'pw')
  })

  it('lets stringData win over data for the same key', () => {
    const rendered = renderFeatureStore(store({ oidc: { secretRef: { name: 'oidc' } } }), { secrets: secret({ ...OIDC_SECRET, stringData: { client_id: 'from-string-data' } }) })
    assert.equal(rendered.server.client_id, 'from-string-data')
  })

  it('reads every setting from one key holding YAML when secretKeyName is set, keeping numbers as strings', () => {
    const blob = 'auth_discovery_url: https://idp.example.com/.well-known/openid-configuration\nclient_id: feast\naudience: 1234567890\n'
    const rendered = renderFeatureStore(store({ oidc: { secretRef: { name: 'oidc' }, secretKeyName: 'oidc.yaml' } }), { secrets: secret({ stringData: { 'oidc.yaml': blob } }) })
    assert.deepEqual(rendered.server, { type: 'oidc', auth_discovery_url: 'https://idp.example.com/.well-known/openid-configuration', client_id: 'feast', audience: '1234567890' })
  })

  it('derives the discovery URL from issuerUrl, which wins over the Secret', () => {
    const rendered = renderFeatureStore(store({ oidc: { secretRef: { name: 'oidc' }, issuerUrl: 'https://idp.example.com/realms/x/' } }), { secrets: secret(OIDC_SECRET) })
    assert.equal(rendered.server.auth_discovery_url, 'https://idp.example.com/realms/x/.well-known/openid-configuration')
  })

  it('writes verify_ssl, ca_cert_path and the JWKS settings into the server section only', () => {
    const rendered = renderFeatureStore(store({ oidc: { secretRef: { name: 'oidc' }, verifySSL: false, caCertConfigMap: { name: 'idp-ca' }, jwksCacheLifespanSeconds: 60, jwksRequestTimeoutSeconds: 5 } }), { secrets: secret(OIDC_SECRET) })
    assert.deepEqual(
      [rendered.server.verify_ssl, rendered.server.ca_cert_path, rendered.server.jwks_cache_lifespan_seconds, rendered.server.jwks_request_timeout_seconds],
      [false, '/etc/pki/tls/oidc-ca/ca.crt', 60, 5]
    )
    assert.deepEqual(rendered.client, { type: 'oidc' })
    assert.match(rendered.warnings.join('\n'), /verifySSL is false/)
  })
})

describe('operator render: feature_store_yaml_base64', () => {
  it('encodes a whole feature_store.yaml with the project and the server auth section', () => {
    const rendered = renderFeatureStore(fixture('featurestore-oidc.yaml'), { secrets: secretFixture() })
    const decoded = parse(Buffer.from(rendered.feature_store_yaml_base64, 'base64').toString('utf8')) as Record<string, unknown>
    assert.deepEqual(decoded, { project: 'driver_ranking', auth: rendered.server })
  })

  it('keeps Secret values holding YAML syntax and line breaks as values: none becomes a key or another document', () => {
    const hostile = 'x\n  type: no_auth\n---\nkind: ClusterRoleBinding\n# " \' &a *a !!js/function {y: [z]} ? - : end'
    const values = { auth_discovery_url: 'https://idp.example.com/.well-known/openid-configuration', client_id: hostile, client_secret: hostile, audience: hostile, issuer: hostile, username: hostile, password: hostile }
    const rendered = renderFeatureStore(store({ oidc: { secretRef: { name: 'oidc' } } }), { secrets: secret({ stringData: values }) })
    const decoded = parse(Buffer.from(rendered.feature_store_yaml_base64, 'base64').toString('utf8')) as Record<string, unknown>
    assert.deepEqual(decoded, { project: 'demo_project', auth: { type: 'oidc', ...values } })
  })

  it('completes a base feature_store.yaml, replacing its project and auth', () => {
    const rendered = renderFeatureStore(store(undefined), { base: { project: 'old', registry: { path: 'data/registry.db' }, auth: { type: 'no_auth' } } })
    const decoded = parse(Buffer.from(rendered.feature_store_yaml_base64, 'base64').toString('utf8')) as Record<string, unknown>
    assert.deepEqual(decoded, { project: 'demo_project', registry: { path: 'data/registry.db' }, auth: { type: 'kubernetes', audiences: [deploymentAudience('feast', 'demo')] } })
  })

  it('accepts spec.serviceProject as the project name', () => {
    const resource = store(undefined)
    resource.spec = { serviceProject: 'svc_project' }
    const decoded = parse(Buffer.from(renderFeatureStore(resource).feature_store_yaml_base64, 'base64').toString('utf8')) as Record<string, unknown>
    assert.equal(decoded.project, 'svc_project')
  })
})

describe('operator render: RBAC objects', () => {
  const names = (rbac: readonly Record<string, unknown>[]): string[] => rbac.map((o) => `${o.kind as string}/${(o.metadata as { name: string }).name}`)
  const rulesOf = (object: Record<string, unknown> | undefined): unknown => (object as { rules: unknown }).rules
  const TOKEN_REVIEW = { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] }

  it('emits the minimal Kubernetes-mode Role, RoleBinding, ClusterRole, ClusterRoleBinding and one Role per listed role', () => {
    const { rbac } = renderFeatureStore(fixture('featurestore-kubernetes.yaml'))
    assert.deepEqual(names(rbac), [
      'Role/feast-sample-kubernetes-auth',
      'RoleBinding/feast-sample-kubernetes-auth',
      'ClusterRole/feast-authz-token-review',
      'ClusterRoleBinding/feast-authz:feast:sample-kubernetes-auth:token-review',
      'Role/feast-writer',
      'Role/feast-reader'
    ])
  })

  it('binds the store service account to its Role in the store namespace', () => {
    const binding = renderFeatureStore(fixture('featurestore-kubernetes.yaml')).rbac[1] as { subjects: unknown[], roleRef: unknown, metadata: { namespace: string } }
    assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: 'feast-sample-kubernetes-auth', namespace: 'feast' }])
    assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'feast-sample-kubernetes-auth' })
    assert.equal(binding.metadata.namespace, 'feast')
  })

  it('lets the store Role only read RoleBindings and Roles of its namespace', () => {
    const { rbac } = renderFeatureStore(fixture('featurestore-kubernetes.yaml'))
    assert.deepEqual(rulesOf(rbac[0]), [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['rolebindings', 'roles'], verbs: ['get', 'list', 'watch'] }])
  })

  it('gives each listed Feast role its marker rule, which nobody holds by accident', () => {
    const { rbac } = renderFeatureStore(fixture('featurestore-kubernetes.yaml'))
    const role = rbac[4] as { metadata: { name: string }, rules: unknown[] }
    assert.deepEqual(role.rules, [{ apiGroups: ['feast.dev'], resources: ['roles'], resourceNames: [role.metadata.name], verbs: ['assume'] }])
    assert.ok(hasFeastRoleMarker(role.metadata.name, role.rules as never), 'the server recognises the rendered marker')
  })

  it('grants cluster-wide only TokenReview creation by default', () => {
    const { rbac } = renderFeatureStore(fixture('featurestore-kubernetes.yaml'))
    assert.deepEqual(rulesOf(rbac[2]), [TOKEN_REVIEW])
    const binding = rbac[3] as { roleRef: unknown, subjects: unknown[] }
    assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'feast-authz-token-review' })
    assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: 'feast-sample-kubernetes-auth', namespace: 'feast' }])
  })

  it('emits the Feast operator\'s objects, names and rules with feastCompatibleRbac: true', () => {
    const { rbac } = renderFeatureStore(fixture('featurestore-kubernetes.yaml'), { feastCompatibleRbac: true })
    assert.deepEqual(names(rbac), [
      'Role/feast-sample-kubernetes-auth',
      'RoleBinding/feast-sample-kubernetes-auth',
      'ClusterRole/feast-token-review-cluster-role',
      'ClusterRoleBinding/feast-sample-kubernetes-auth-cluster-binding',
      'Role/feast-writer',
      'Role/feast-reader'
    ])
    const extras = [
      { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['get', 'list'] },
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterrolebindings'], verbs: ['get', 'list'] }
    ]
    assert.deepEqual(rulesOf(rbac[0]), [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: ['get', 'list', 'watch'] }, TOKEN_REVIEW, ...extras])
    assert.deepEqual(rulesOf(rbac[2]), [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['rolebindings'], verbs: ['list'] }, TOKEN_REVIEW, ...extras])
    assert.equal((rbac[3] as { roleRef: { name: string } }).roleRef.name, 'feast-token-review-cluster-role')
  })

  it('renders the same server and client sections whichever RBAC is chosen', () => {
    const minimal = renderFeatureStore(fixture('featurestore-kubernetes.yaml'))
    const compatible = renderFeatureStore(fixture('featurestore-kubernetes.yaml'), { feastCompatibleRbac: true })
    assert.deepEqual(
      [compatible.server, compatible.client, compatible.feature_store_yaml_base64],
      [minimal.server, minimal.client, minimal.feature_store_yaml_base64]
    )
  })

  it('leaves OIDC RBAC unchanged with feastCompatibleRbac: true', () => {
    const plain = renderFeatureStore(fixture('featurestore-oidc.yaml'), { secrets: secretFixture() })
    const compatible = renderFeatureStore(fixture('featurestore-oidc.yaml'), { secrets: secretFixture(), feastCompatibleRbac: true })
    assert.deepEqual(compatible.rbac, plain.rbac)
  })

  it('emits only the TokenReview ClusterRole and its binding for OIDC', () => {
    const { rbac } = renderFeatureStore(fixture('featurestore-oidc.yaml'), { secrets: secretFixture() })
    assert.deepEqual(rbac.map((o) => `${o.kind as string}/${(o.metadata as { name: string }).name}`), ['ClusterRole/feast-oidc-token-review', 'ClusterRoleBinding/feast-authz:feast:sample-oidc-auth:oidc-token-review'])
    assert.deepEqual((rbac[0] as { rules: unknown[] }).rules, [{ apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] }])
  })

  it('uses namespace default with a warning when the resource names none', () => {
    const resource = store(undefined)
    resource.metadata = { name: 'demo' }
    const rendered = renderFeatureStore(resource)
    assert.equal((rendered.rbac[0] as { metadata: { namespace: string } }).metadata.namespace, 'default')
    assert.match(rendered.warnings.join('\n'), /metadata\.namespace is not set/)
  })
})

describe('operator render: invalid resources', () => {
  it('names a resource file it cannot read as the FeatureStore resource, not as a configuration', () => {
    assert.throws(() => renderFeatureStore('/no/such/featurestore.yaml'), (error: unknown) => error instanceof ConfigError && error.message === '/no/such/featurestore.yaml: cannot read the FeatureStore resource: file not found')
  })

  it('refuses an apiVersion other than <group>/v1', () => {
    failsWith({ ...store(undefined), apiVersion: 'feast.dev/v1alpha1' }, {}, /apiVersion: expected <group>\/v1 \(e\.g\. feast\.dev\/v1\), got "feast\.dev\/v1alpha1"/)
  })

  it('refuses another kind', () => {
    failsWith({ ...store(undefined), kind: 'Deployment' }, {}, /kind: expected FeatureStore, got "Deployment"/)
  })

  it('refuses more than one member of spec.authz, pointing at the line', () => {
    assert.throws(() => renderFeatureStore(fixture('featurestore-two-members.yaml'), { secrets: secretFixture() }), /featurestore-two-members\.yaml:9:\d+: spec\.authz: set exactly one of kubernetes, oidc or noAuth: true, got kubernetes and oidc/)
  })

  it('refuses an empty spec.authz', () => {
    failsWith(store({}), {}, /spec\.authz: set exactly one of .* got none/)
  })

  it('refuses an unknown member of spec.authz', () => {
    failsWith(store({ ldap: {} }), {}, /spec\.authz\.ldap: unknown member/)
  })

  it('suggests the member or field a misspelt one was meant to be', () => {
    failsWith(store({ odic: {} }), {}, /spec\.authz\.odic: unknown member \(did you mean oidc\?\): expected one of kubernetes, oidc, noAuth/)
    failsWith(store({ oidc: { secretref: { name: 'oidc' } } }), { secrets: secret(OIDC_SECRET) }, /spec\.authz\.oidc\.secretref: unknown field \(did you mean secretRef\?\): expected one of/)
    failsWith(store({ kubernetes: { role: ['reader'] } }), {}, /spec\.authz\.kubernetes\.role: unknown field \(did you mean roles\?\): expected roles/)
  })

  it('refuses fields of secretRef and caCertConfigMap that the resource schema does not have, as the API server does', () => {
    failsWith(store({ oidc: { secretRef: { name: 'oidc', namespace: 'other' } } }), { secrets: secret(OIDC_SECRET) }, /spec\.authz\.oidc\.secretRef\.namespace: unknown field: expected name/)
    failsWith(store({ oidc: { secretRef: { name: 'oidc' }, caCertConfigMap: { name: 'idp-ca', keys: 'ca.crt' } } }), { secrets: secret(OIDC_SECRET) }, /spec\.authz\.oidc\.caCertConfigMap\.keys: unknown field \(did you mean key\?\): expected one of name, key/)
  })

  it('refuses a caCertConfigMap key that is not a non-empty string, instead of mounting the default key', () => {
    failsWith(store({ oidc: { secretRef: { name: 'oidc' }, caCertConfigMap: { name: 'idp-ca', key: 5 } } }), { secrets: secret(OIDC_SECRET) }, /spec\.authz\.oidc\.caCertConfigMap\.key: expected a ConfigMap key \(letters, digits, -, _ and \.\), got 5/)
  })

  it('refuses a caCertConfigMap name or key Kubernetes would refuse, rather than echo it into a warning', () => {
    const options = { secrets: secret(OIDC_SECRET) }
    failsWith(store({ oidc: { secretRef: { name: 'oidc' }, caCertConfigMap: { name: 'idp-ca\nfeast-authz operator render: warning: all clear' } } }), options, /spec\.authz\.oidc\.caCertConfigMap\.name: expected a ConfigMap name \(a lower-case DNS name\), got "idp-ca\\nfeast-authz/)
    failsWith(store({ oidc: { secretRef: { name: 'oidc' }, caCertConfigMap: { name: 'idp-ca', key: 'ca.crt\u001b[2J' } } }), options, /spec\.authz\.oidc\.caCertConfigMap\.key: expected a ConfigMap key \(letters, digits, -, _ and \.\), got "ca\.crt\\u001b\[2J"/)
  })

  it('refuses a store name longer than 63 characters, which every rendered RBAC object carries as a label value the API server refuses', () => {
    const resource = store(undefined)
    resource.metadata = { name: 'd'.repeat(64), namespace: 'feast' }
    failsWith(resource, {}, /metadata\.name: expected a lower-case DNS name of at most 63 characters \(the RBAC objects carry it as the label feast\.dev\/name\), got "d+\.\.\."/)
    resource.metadata = { name: 'd'.repeat(63), namespace: 'feast' }
    assert.doesNotThrow(() => renderFeatureStore(resource))
  })

  it('refuses a namespace longer than 63 characters, which no namespace can be', () => {
    const resource = store(undefined)
    resource.metadata = { name: 'demo', namespace: 'n'.repeat(64) }
    failsWith(resource, {}, /metadata\.namespace: expected a namespace name, got "n+\.\.\."/)
  })

  it('renders a Role for a Feast role that is no DNS name, as the Feast operator does, and the API server takes it', async () => {
    const roles = ['feast_reader', 'Team.Writers']
    const rendered = renderFeatureStore(store({ kubernetes: { roles } }))
    const made = rendered.rbac.filter((object) => object.kind === 'Role' && roles.includes((object.metadata as { name: string }).name))
    assert.deepEqual(made.map((object) => (object.metadata as { name: string }).name), roles)
    const api = await startFakeKubeApi()
    try {
      for (const { apiVersion: _, kind: __, ...json } of made) api.putRole(json as never)
    } finally {
      await api.close()
    }
  })

  it('refuses a listed role the API server would refuse as a Role\'s name, naming its item', () => {
    for (const role of ['team/admins', '', '..', 'ninety%', 42]) {
      failsWith(store({ kubernetes: { roles: ['reader', role] } }), {}, /spec\.authz\.kubernetes\.roles: item 1: expected a Role's name \(not empty, \. or \.\., without \/ or %\), got /)
    }
  })

  it('refuses roles that are no list, saying what they are', () => {
    failsWith(store({ kubernetes: { roles: 'reader' } }), {}, /spec\.authz\.kubernetes\.roles: expected a list of Role names, got "reader"/)
  })

  it('refuses a listed role named like the store\'s own Role, which would replace the service\'s rules', () => {
    failsWith(store({ kubernetes: { roles: ['reader', 'feast-demo'] } }), {}, /spec\.authz\.kubernetes\.roles: "feast-demo" is the name of the store's own Role/)
  })

  it('refuses a secretRef naming a Secret that was not given', () => {
    failsWith(store({ oidc: { secretRef: { name: 'missing' } } }), { secrets: secret(OIDC_SECRET) }, /spec\.authz\.oidc\.secretRef\.name: names Secret "missing", which was not given \(given: "oidc"\)/)
  })

  it('takes the Secret of the store\'s namespace, never one of the same name in another namespace', () => {
    const inNamespace = (namespace: string, discovery: string): NonNullable<RenderOptions['secrets']>[number] => {
      const [given] = secret({ data: { ...OIDC_SECRET.data, auth_discovery_url: discovery } })
      return { object: { ...given!.object, metadata: { name: 'oidc', namespace } } }
    }
    const secrets = [inNamespace('other', 'https://other.example.com/.well-known/openid-configuration'), inNamespace('feast', 'https://idp.example.com/.well-known/openid-configuration')]
    assert.equal(renderFeatureStore(store({ oidc: { secretRef: { name: 'oidc' } } }), { secrets }).server.auth_discovery_url, 'https://idp.example.com/.well-known/openid-configuration')
    failsWith(store({ oidc: { secretRef: { name: 'oidc' } } }), { secrets: secrets.slice(0, 1) }, /names Secret "oidc", which was not given \(given: "oidc" \(namespace "other", not "feast"\)\)$/)
  })

  it('names a document given among the Secrets that is not a Secret, with its kind', () => {
    const featureStore = { object: { apiVersion: 'feast.dev/v1', kind: 'FeatureStore', metadata: { name: 'sample' } } }
    failsWith(store({ oidc: { secretRef: { name: 'oidc' } } }), { secrets: [featureStore] }, /names Secret "oidc", which was not given \(given: "sample" \(kind "FeatureStore", not a Secret\)\)$/)
  })

  it('refuses a Secret given as the resource, saying where a Secret goes', () => {
    failsWith({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'oidc' }, data: {} }, {}, /^kind: expected FeatureStore, got "Secret": a Secret that spec\.authz\.oidc\.secretRef names is passed with --secret$/)
  })

  it('refuses OIDC without any discovery URL', () => {
    failsWith(store({ oidc: { secretRef: { name: 'oidc' } } }), { secrets: secret({ data: { client_id: 'feast' } }) }, /no OIDC discovery URL: set issuerUrl, or put auth_discovery_url in the Secret/)
  })

  it('refuses OIDC whose Secret has no client_id, since servers need it', () => {
    failsWith(store({ oidc: { secretRef: { name: 'oidc' } } }), { secrets: secret({ data: { auth_discovery_url: 'https://idp.example.com/.well-known/openid-configuration' } }) }, /the Secret has no client_id/)
  })

  it('refuses a secretKeyName entry that carries type or registry_type, as the Feast operator does', () => {
    const settings = 'auth_discovery_url: https://idp.example.com/.well-known/openid-configuration\nclient_id: feast\n'
    for (const entry of ['type: oidc', 'registry_type: sql']) {
      failsWith(
        store({ oidc: { secretRef: { name: 'oidc' }, secretKeyName: 'oidc.yaml' } }),
        { secrets: secret({ stringData: { 'oidc.yaml': `${entry}\n${settings}` } }) },
        new RegExp(`data\\.oidc\\.yaml: key "oidc\\.yaml" of secret "oidc" has a \`${entry.split(':')[0] as string}\` entry, which the Feast operator refuses`)
      )
    }
  })

  it('refuses a Secret whose data is not base64, without showing the value', () => {
    const secrets = [{ object: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'oidc' }, data: { client_secret: 'plain text secret!' } } }]
    assert.throws(() => renderFeatureStore(store({ oidc: { secretRef: { name: 'oidc' } } }), { secrets }), (error: unknown) => {
      assert.match(String(error), /key "client_secret" of secret "oidc" is not base64/)
      assert.doesNotMatch(String(error), /plain text secret/)
      return true
    })
  })

  it('refuses a missing project name', () => {
    failsWith({ ...store(undefined), spec: {} }, {}, /spec: missing the project name: set spec\.feastProject/)
  })

  it('refuses feastProject and serviceProject that differ', () => {
    failsWith(store(undefined, { serviceProject: 'other' }), {}, /spec\.serviceProject: differs from spec\.feastProject/)
  })

  it('refuses a non-boolean noAuth', () => {
    failsWith(store({ noAuth: 'yes' }), {}, /spec\.authz\.noAuth: expected true or false, got "yes"/)
  })
})

describe('docs/operator.md', () => {
  it('shows the client pod additions that render emits for the sample store', () => {
    const docs = readFileSync(new URL('../../docs/operator.md', import.meta.url), 'utf8')
    const block = [...docs.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => match[1]!).find((text) => text.includes('serviceAccountToken'))
    assert.ok(block !== undefined, 'the docs show the projected token volume')
    assert.deepEqual(parse(block), renderFeatureStore(fixture('featurestore-default.yaml')).clientPod)
  })
})

describe('renderer options', () => {
  it('refuses a feastCompatibleRbac that is not a boolean: the string "false" must not grant the broader RBAC', () => {
    assert.throws(() => renderFeatureStore(store({ kubernetes: {} }), { feastCompatibleRbac: 'false' as never }), {
      name: 'OptionError',
      option: 'feastCompatibleRbac',
      message: 'feast-authz: renderFeatureStore: feastCompatibleRbac must be true or false, got "false"'
    })
    assert.throws(() => kubernetesRbac('demo', 'feast', [], { feastCompatible: 1 as never }), { name: 'OptionError', option: 'feastCompatible' })
  })

  it('kubernetesRbac, called on its own, also refuses a Feast role named as the store\'s own Role', () => {
    assert.throws(() => kubernetesRbac('demo', 'feast', ['reader', 'feast-demo']), { name: 'OptionError', option: 'roles', message: /"feast-demo" is the store's own Role/ })
    assert.equal(kubernetesRbac('demo', 'feast', ['reader']).filter((object) => object.kind === 'Role').length, 2)
  })

  it('refuses a Secret without its object, never showing a Secret\'s values', () => {
    assert.throws(() => renderFeatureStore(store({ oidc: { secretRef: { name: 'oidc' } } }), { secrets: ['client_secret: hunter2'] as never }), (error: unknown) => {
      assert.equal((error as { option?: string }).option, 'secrets[0]')
      assert.doesNotMatch((error as Error).message, /hunter2/)
      assert.match((error as Error).message, /secrets\[0\] must be an object, got a string \(value hidden\)/)
      return true
    })
  })
})
