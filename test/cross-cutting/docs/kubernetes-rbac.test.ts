/**
 * The RBAC objects docs/kubernetes.md tells users to apply are exactly enough: applied with
 * kubectl to an API server that authorizes by RBAC, the service account they name runs the
 * kubernetes manager; with any one permission taken away it fails as the docs say, naming what
 * is missing; and they grant nothing else. The page's claims about who can bind a Feast role
 * are checked against the API server's escalation check.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import { jwsToken, rulelessRole, serviceAccountIdentity, serviceAccountJwt, type FakeKubeApi } from '../../helpers/fake-kube-api.ts'
import { fences } from '../../helpers/markdown.ts'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fakePod, KUBERNETES_CONFIG, kubectlMissing, managerFor, runKubectl, type KubectlRun } from '../../helpers/kubernetes.ts'
import { eventually } from '../../helpers/eventually.ts'
import {
  applyAsAdmin, boundServiceAccounts, checkManager, clusterWith, withCluster, consequenceOf, describeConsequence, heldPermissions,
  minimalServicePermissions, parseManifests, variantsWithOneLess, type Manifest
} from '../../helpers/rbac-manifests.ts'

const PAGE = 'docs/kubernetes.md'
const markdown = readFileSync(new URL('../../../docs/kubernetes.md', import.meta.url), 'utf8')

/** The objects of the first YAML block after the heading `heading` of the page. */
function manifestsUnder (heading: string): Manifest[] {
  const at = markdown.split('\n').indexOf(heading) + 1
  assert.ok(at > 0, `${PAGE} has the heading ${heading}`)
  const fence = fences(markdown).find((one) => one.line > at && one.language === 'yaml')
  assert.ok(fence !== undefined, `a YAML block under ${heading}`)
  return parseManifests(fence.text, `${PAGE}:${fence.line}`)
}

const service = manifestsUnder('## RBAC the service needs')
const clientRole = manifestsUnder('### Giving a client a Feast role')
const oidcService = manifestsUnder('## Service-account tokens on an OIDC server')
const missing = kubectlMissing()

/** The client of the docs' example binding (`ml-jobs/training-job`), and the role it gets. */
function client (api: FakeKubeApi): { token: string, roles: string[] } {
  const token = serviceAccountJwt('ml-jobs', 'training-job')
  api.addToken(token, serviceAccountIdentity('ml-jobs', 'training-job'))
  return { token, roles: ['feast-reader'] }
}

describe(`the RBAC objects of ${PAGE}, applied with kubectl to an API server that authorizes by RBAC`, { skip: missing }, () => {
  const [serviceAccount] = boundServiceAccounts(service)

  test('they name one service account, which the ServiceAccount object of the block creates', () => {
    assert.deepEqual(boundServiceAccounts(service), ['feast/feast'])
    assert.ok(service.some((object) => object.kind === 'ServiceAccount' && `${object.metadata.namespace as string}/${object.metadata.name as string}` === serviceAccount))
  })

  test('as that service account, the manager reviews a client\'s token, finds the Feast role bound to it and becomes ready', async () => {
    await withCluster([...service, ...clientRole], async (api) => {
      await checkManager(api, serviceAccount!, client(api), { kind: 'none' })
    })
  })

  for (const variant of variantsWithOneLess(service)) {
    const consequence = consequenceOf(variant.removed, 'feast')
    test(`without ${variant.without}, ${describeConsequence(consequence)}`, async () => {
      await withCluster([...variant.objects, ...clientRole], async (api) => {
        await checkManager(api, serviceAccount!, client(api), consequence)
      })
    })
  }

  test('they give the service account nothing else: only get, list, watch of rolebindings and roles in its namespace, and create tokenreviews', async () => {
    await withCluster(service, async (api) => {
      const { token } = fakePod(api, 'feast', 'feast')
      assert.deepEqual(await heldPermissions(api, token, ['feast', 'default', '']), minimalServicePermissions('feast', ['feast', 'default', '']))
    })
  })

  test('kubectl auth can-i, as the service account, agrees: no secrets, no RoleBinding writes, no other namespace', async () => {
    await withCluster(service, async (api) => {
      const kubeconfig = await api.writeKubeconfig({ name: 'service', token: fakePod(api, 'feast', 'feast').token })
      const canI = async (...args: string[]): Promise<string> => (await runKubectl(api, ['auth', 'can-i', ...args], kubeconfig)).stdout.trim()
      assert.equal(await canI('watch', 'rolebindings.rbac.authorization.k8s.io'), 'yes')
      assert.equal(await canI('create', 'tokenreviews.authentication.k8s.io'), 'yes')
      assert.equal(await canI('list', 'secrets'), 'no')
      assert.equal(await canI('create', 'rolebindings.rbac.authorization.k8s.io'), 'no')
      assert.equal(await canI('list', 'rolebindings.rbac.authorization.k8s.io', '-n', 'kube-system'), 'no')
      const refused = await runKubectl(api, ['get', 'clusterroles'], kubeconfig)
      assert.match(refused.stderr, /Forbidden.*cannot list resource "clusterroles"/)
    })
  })

  test('the OIDC section\'s TokenReview grant is all the service account holds there: create tokenreviews, nothing to read', async () => {
    await withCluster(oidcService, async (api) => {
      const { token } = fakePod(api, 'feast', 'feast')
      assert.deepEqual(await heldPermissions(api, token, ['feast', '']), ['create tokenreviews.authentication.k8s.io (cluster)', 'create tokenreviews.authentication.k8s.io feast'])
    })
  })
})

describe(`the claims of ${PAGE} about who can bind a Feast role, against the API server's escalation check`, { skip: missing }, () => {
  let api: FakeKubeApi
  let binder: string
  before(async () => {
    api = await clusterWith([...service, ...clientRole])
    // Feast's own operator makes its roles without rules.
    await applyAsAdmin(api, JSON.stringify({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', ...rulelessRole('feast', 'feast-legacy') }))
    // A namespace user who may create RoleBindings in the service namespace, and nothing else.
    await applyAsAdmin(api, JSON.stringify({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'binding-creator', namespace: 'feast' }, rules: [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['rolebindings'], verbs: ['create'] }] },
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'mallory-binding-creator', namespace: 'feast' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'binding-creator' }, subjects: [{ kind: 'User', name: 'mallory', apiGroup: 'rbac.authorization.k8s.io' }] }
      ]
    }))
    api.addToken(jwsToken('mallory'), { username: 'mallory' })
    binder = await api.writeKubeconfig({ name: 'mallory', token: jwsToken('mallory') })
  })
  after(async () => { await api?.close() })

  /**
   * `kubectl create -f` of a RoleBinding of the Role `role` to mallory, as mallory. (Not `kubectl
   * create rolebinding`, which sends protobuf, nor `apply`, which first reads what she may not read.)
   */
  async function bindAsMallory (name: string, role: string): Promise<KubectlRun> {
    const file = join(api.dir, `${name}.json`)
    await writeFile(file, JSON.stringify({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name, namespace: 'feast' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: role },
      subjects: [{ kind: 'User', name: 'mallory', apiGroup: 'rbac.authorization.k8s.io' }]
    }))
    return await runKubectl(api, ['create', '--validate=false', '-f', file], binder)
  }

  test('whoever may create RoleBindings in the namespace can bind a Role with no rules to themselves, and the manager then counts it only with allow_ruleless_roles', async () => {
    const run = await bindAsMallory('mallory-legacy', 'feast-legacy')
    assert.equal(run.code, 0, run.stderr)
    const pod = fakePod(api, 'feast', 'feast')
    for (const [allow, roles] of [[false, []], [true, ['feast-legacy']]] as const) {
      const config = { ...KUBERNETES_CONFIG, allow_ruleless_roles: allow }
      const manager = managerFor(api, { config, connection: pod.connection, serviceAccountDir: pod.serviceAccountDir })
      try {
        await eventually(async () => JSON.stringify((await manager.authenticate(jwsToken('mallory'))).roles) === JSON.stringify(roles), `roles ${JSON.stringify(roles)} with allow_ruleless_roles: ${String(allow)}`)
      } finally {
        await manager.close()
      }
    }
  })

  test('the same person cannot bind a Role holding the marker rule: the API server refuses, naming the marker permission', async () => {
    const run = await bindAsMallory('mallory-reader', 'feast-reader')
    assert.notEqual(run.code, 0)
    assert.match(run.stderr, /Error from server \(Forbidden\): error when creating "[^"]+": rolebindings\.rbac\.authorization\.k8s\.io "mallory-reader" is forbidden: user "mallory" .* not currently held:\n\{APIGroups:\["feast\.dev"\], Resources:\["roles"\], ResourceNames:\["feast-reader"\], Verbs:\["assume"\]\}/)
  })
})
