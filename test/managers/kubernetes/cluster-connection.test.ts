import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { ConfigError } from '../../../src/config/errors.ts'
import { detectClusterConnection, SERVICE_ACCOUNT_DIR } from '../../../src/managers/kubernetes/cluster-connection.ts'
import { resolveServiceNamespace } from '../../../src/managers/kubernetes/service-namespace.ts'
import { startFakeKubeApi, type FakeKubeApi } from '../../helpers/fake-kube-api.ts'
import { expectError, thrownBy } from '../../helpers/errors.ts'
import { fakePodDir } from '../../helpers/kubernetes.ts'

const root = mkdtempSync(join(tmpdir(), 'feast-authz-k8s-conn-'))
const emptyHome = join(root, 'home')
mkdirSync(emptyHome)
const noPod = join(root, 'no-pod', SERVICE_ACCOUNT_DIR)

const podDir = (namespace: string | undefined): string => fakePodDir(root, namespace)

describe('cluster connection', () => {
  let api: FakeKubeApi
  before(async () => { api = await startFakeKubeApi({ namespace: 'from-context' }) })
  after(async () => { await api.close() })

  test('in a pod, the in-cluster service account is used', () => {
    const connection = detectClusterConnection({ env: { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443', KUBECONFIG: api.kubeconfigPath }, serviceAccountDir: podDir('feast'), homeDir: emptyHome })
    assert.equal(connection?.source, 'in-cluster')
    assert.equal(connection.kubeConfig.getCurrentCluster()?.server, 'https://10.0.0.1:443')
  })

  test('outside a pod, KUBECONFIG is used', () => {
    const connection = detectClusterConnection({ env: { KUBECONFIG: api.kubeconfigPath }, serviceAccountDir: noPod, homeDir: emptyHome })
    assert.equal(connection?.source, 'kubeconfig')
    assert.equal(connection.kubeConfig.getCurrentCluster()?.server, api.url)
  })

  test('without KUBECONFIG, ~/.kube/config is used unless turned off', () => {
    const home = join(root, 'home-with-config')
    mkdirSync(join(home, '.kube'), { recursive: true })
    writeFileSync(join(home, '.kube', 'config'), `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: ${api.url}\nusers:\n- name: u\n  user:\n    token: t\ncontexts:\n- name: x\n  context:\n    cluster: c\n    user: u\ncurrent-context: x\n`)
    assert.equal(detectClusterConnection({ env: {}, serviceAccountDir: noPod, homeDir: home })?.source, 'kubeconfig')
    assert.equal(detectClusterConnection({ env: {}, serviceAccountDir: noPod, homeDir: home, useHomeConfig: false }), undefined)
  })

  test('with no pod, no KUBECONFIG and no ~/.kube/config there is no connection (never localhost:8080)', () => {
    assert.equal(detectClusterConnection({ env: {}, serviceAccountDir: noPod, homeDir: emptyHome }), undefined)
  })

  const kubeconfigError = (path: string): ConfigError =>
    thrownBy(() => detectClusterConnection({ env: { KUBECONFIG: path }, serviceAccountDir: noPod, homeDir: emptyHome }), ConfigError)

  test('a missing KUBECONFIG is a ConfigError naming the file, in the words of every file read', () => {
    const missing = join(root, 'missing-kubeconfig')
    assert.equal(kubeconfigError(missing).message, `${missing}: cannot read the kubeconfig: file not found`)
  })

  test('a token-file the kubeconfig names that cannot be read is named itself, not taken for the kubeconfig', () => {
    const config = join(root, 'token-file-kubeconfig')
    const tokenFile = join(root, 'no-such-token')
    writeFileSync(config, `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: ${api.url}\nusers:\n- name: u\n  user:\n    token-file: ${tokenFile}\n` +
      'contexts:\n- name: x\n  context:\n    cluster: c\n    user: u\ncurrent-context: x\n')
    assert.equal(kubeconfigError(config).message, `${config}: cannot read ${tokenFile}, which the kubeconfig names: file not found`)
  })

  test('a kubeconfig that is not YAML is told by line, column and reason, never by the lines around the fault, which hold its credentials', () => {
    const broken = join(root, 'broken-kubeconfig')
    writeFileSync(broken, 'apiVersion: v1\nusers:\n- name: u\n  user:\n    token: do-not-print-me\n   oops: [\n')
    const message = kubeconfigError(broken).message
    assert.match(message, new RegExp(`^${broken.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:6:4: cannot parse the kubeconfig: bad indentation of a mapping entry$`))
    assert.doesNotMatch(message, /do-not-print-me/)
  })

  test('a kubeconfig token that YAML reads as an alias or a tag is not quoted by the parser\'s reason', () => {
    const broken = join(root, 'token-as-alias-kubeconfig')
    for (const token of ['*do-not-print-me', '!do-not-print-me', '!!do-not-print-me']) {
      writeFileSync(broken, `apiVersion: v1\nusers:\n- name: u\n  user:\n    token: ${token}\n`)
      const message = kubeconfigError(broken).message
      assert.match(message, /cannot parse the kubeconfig: (unresolved alias|unknown or invalid tag) /)
      assert.doesNotMatch(message, /do-not-print-me/)
    }
  })
})

describe('service namespace discovery', () => {
  let api: FakeKubeApi
  before(async () => { api = await startFakeKubeApi({ namespace: 'from-context' }) })
  after(async () => { await api.close() })

  test('the pod\'s namespace file comes first', () => {
    const found = resolveServiceNamespace({ serviceAccountDir: podDir('from-file'), env: { POD_NAMESPACE: 'from-env' }, kubeConfig: api.kubeConfig(), configured: 'from-config' })
    assert.deepEqual(found, { namespace: 'from-file', source: 'service-account file' })
  })

  test('then POD_NAMESPACE', () => {
    const found = resolveServiceNamespace({ serviceAccountDir: podDir(undefined), env: { POD_NAMESPACE: 'from-env' }, kubeConfig: api.kubeConfig(), configured: 'from-config' })
    assert.deepEqual(found, { namespace: 'from-env', source: 'POD_NAMESPACE' })
  })

  test('then the kubeconfig context', () => {
    const found = resolveServiceNamespace({ serviceAccountDir: noPod, env: {}, kubeConfig: api.kubeConfig(), configured: 'from-config' })
    assert.deepEqual(found, { namespace: 'from-context', source: 'kubeconfig context' })
  })

  test('then auth.namespace', async () => {
    const path = await api.writeKubeconfig({ name: 'no-namespace', namespace: null })
    const connection = detectClusterConnection({ env: { KUBECONFIG: path }, serviceAccountDir: noPod })
    const found = resolveServiceNamespace({ serviceAccountDir: noPod, env: {}, kubeConfig: connection?.kubeConfig, configured: 'from-config' })
    assert.deepEqual(found, { namespace: 'from-config', source: 'auth.namespace' })
  })

  test('none of them is a ConfigError pointing at auth.namespace', () => {
    expectError(() => resolveServiceNamespace({ serviceAccountDir: noPod, env: {} }), { type: ConfigError, field: 'auth.namespace' })
  })
})
