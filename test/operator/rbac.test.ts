/**
 * The RBAC objects `feast-authz operator render` prints are exactly enough: piped to `kubectl
 * apply` as docs/operator.md shows, against an API server that authorizes by RBAC, the store's
 * service account runs the kubernetes manager with the rendered server section; with any one
 * permission taken away it fails naming what is missing; it holds nothing else; and the
 * rendered Feast roles can be bound only by whoever holds their marker permission. Two stores of
 * one name in two namespaces get cluster-scoped objects that do not overwrite each other.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { stringify } from 'yaml'
import { hasFeastRoleMarker } from '../../src/base/feast-role-marker.ts'
import { loadAuthConfig } from '../../src/config/auth-config.ts'
import type { KubernetesAuthConfig } from '../../src/config/auth-config.ts'
import { jwsToken, roleBinding, serviceAccountIdentity, serviceAccountJwt, startFakeKubeApi, type FakeKubeApi } from '../helpers/fake-kube-api.ts'
import { kubernetesRbac, oidcRbac, type KubeObject } from '../../src/operator/rbac.ts'
import { renderFeatureStore } from '../../src/operator/render.ts'
import { request } from '../helpers/fake-kube-request.ts'
import { runCli } from '../helpers/cli.ts'
import { fakePod, kubectlMissing, runKubectl } from '../helpers/kubernetes.ts'
import {
  applyAsAdmin, boundServiceAccounts, checkManager, withCluster, consequenceOf, describeConsequence, heldPermissions,
  minimalServicePermissions, parseManifests, variantsWithOneLess, type Manifest
} from '../helpers/rbac-manifests.ts'

const RESOURCE = 'fixtures/operator/featurestore-kubernetes.yaml'
const missing = kubectlMissing()

interface Rendered { readonly text: string, readonly objects: Manifest[], readonly server: KubernetesAuthConfig }

/** `operator render` of a resource: the RBAC part of its readable output (what the docs pipe to kubectl), its objects, the server section. */
async function render (resource: string, ...flags: string[]): Promise<Rendered> {
  const [readable, json] = await Promise.all([runCli(['operator', 'render', '--resource', resource, ...flags]), runCli(['operator', 'render', '--resource', resource, '--json', ...flags])])
  assert.equal(readable.code, 0, readable.stderr)
  assert.equal(json.code, 0, json.stderr)
  // sed -n '/# RBAC/,$p'
  const text = readable.stdout.slice(readable.stdout.indexOf('# RBAC'))
  const { server } = JSON.parse(json.stdout) as { server: Record<string, unknown> }
  const { auth } = loadAuthConfig({ yaml: stringify({ project: 'demo', auth: server }), source: 'operator render' })
  return { text, objects: parseManifests(text, `operator render --resource ${resource}`), server: auth as KubernetesAuthConfig }
}

/** A client in namespace ml with a token for the store's audience, bound by an admin to the rendered Feast role feast-reader. */
async function clientOf (api: FakeKubeApi, server: KubernetesAuthConfig): Promise<{ token: string, roles: string[] }> {
  const token = serviceAccountJwt('ml', 'trainer', { aud: [...(server.audiences ?? [])] })
  api.addToken(token, serviceAccountIdentity('ml', 'trainer'))
  await applyAsAdmin(api, JSON.stringify({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', ...roleBinding('feast', 'trainer-reader', 'feast-reader', [{ kind: 'ServiceAccount', name: 'trainer', namespace: 'ml' }]) }))
  return { token, roles: ['feast-reader'] }
}

const isFeastRole = (object: Manifest): boolean => object.kind === 'Role' && hasFeastRoleMarker(object.metadata.name, object.rules)

// The CLI itself, as the docs pipe it (no cluster needed): the test names come from its objects.
const rendered = await render(RESOURCE)
const [serviceAccount] = boundServiceAccounts(rendered.objects)
const feastRoles = rendered.objects.filter(isFeastRole)
// Every variant of the service's own objects; the Feast roles' marker rules are the clients', not the service's.
const variants = variantsWithOneLess(rendered.objects.filter((object) => !isFeastRole(object)))
  .map((variant) => ({ ...variant, objects: [...variant.objects, ...feastRoles] }))

describe('the RBAC objects of operator render, applied with kubectl to an API server that authorizes by RBAC', { skip: missing }, () => {
  test('they name the store\'s service account, feast-<name> in its namespace, and its Feast roles', () => {
    assert.equal(serviceAccount, 'feast/feast-sample-kubernetes-auth')
    assert.deepEqual(feastRoles.map((role) => role.metadata.name), ['feast-writer', 'feast-reader'])
  })

  test('piped to kubectl apply, they let that service account run the manager with the rendered server section: a client bound to a rendered Feast role gets it', async () => {
    await withCluster([], async (api) => {
      await applyAsAdmin(api, rendered.text)
      await checkManager(api, serviceAccount!, await clientOf(api, rendered.server), { kind: 'none' }, rendered.server)
    })
  })

  test('taking one thing away covers each rule and each binding of the service', () => {
    assert.deepEqual(variants.map((variant) => variant.without).filter((without) => !/^the (verb|resource)/.test(without)), [
      'the rule get rolebindings, list rolebindings, watch rolebindings, get roles, list roles, watch roles of Role feast-sample-kubernetes-auth',
      'RoleBinding feast-sample-kubernetes-auth',
      'the rule create tokenreviews of ClusterRole feast-authz-token-review',
      'ClusterRoleBinding feast-authz:feast:sample-kubernetes-auth:token-review'
    ])
  })

  for (const variant of variants) {
    const consequence = consequenceOf(variant.removed, 'feast')
    test(`without ${variant.without}, ${describeConsequence(consequence)}`, async () => {
      await withCluster(variant.objects, async (api) => {
        await checkManager(api, serviceAccount!, await clientOf(api, rendered.server), consequence, rendered.server)
      })
    })
  }

  test('they give the service account nothing else: get, list, watch of rolebindings and roles in its namespace, and create tokenreviews', async () => {
    await withCluster(rendered.objects, async (api) => {
      const { token } = fakePod(api, 'feast', 'feast-sample-kubernetes-auth')
      assert.deepEqual(await heldPermissions(api, token, ['feast', '']), minimalServicePermissions('feast', ['feast', '']))
    })
  })

  test('a rendered Feast role can be bound only by whoever holds its marker permission (or bind), not by a namespace user who may create RoleBindings', async () => {
    await withCluster(rendered.objects, async (api) => {
      const writer = { apiGroups: ['rbac.authorization.k8s.io'], resources: ['rolebindings'], verbs: ['create'] }
      const marker = feastRoles.find((role) => role.metadata.name === 'feast-reader')!.rules[0]
      const users = { editor: [writer], holder: [writer, marker] }
      for (const [user, rules] of Object.entries(users)) {
        await applyAsAdmin(api, JSON.stringify({
          apiVersion: 'v1',
          kind: 'List',
          items: [
            { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: user, namespace: 'feast' }, rules },
            { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', ...roleBinding('feast', user, user, [{ kind: 'User', name: user }]) }
          ]
        }))
        api.addToken(jwsToken(user), { username: user })
      }
      const bind = async (user: string): Promise<number> => (await request(api, '/apis/rbac.authorization.k8s.io/v1/namespaces/feast/rolebindings', {
        apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', ...roleBinding('feast', `${user}-reader`, 'feast-reader', [{ kind: 'User', name: user }])
      }, { authorization: `Bearer ${jwsToken(user)}` })).status
      assert.equal(await bind('editor'), 403)
      assert.equal(await bind('holder'), 201)
    })
  })

  test('the Feast-compatible objects suffice too, and grant the cluster-wide reads docs/operator.md lists beyond them', async () => {
    const compatible = await render(RESOURCE, '--feast-compatible-rbac')
    await withCluster([], async (api) => {
      await applyAsAdmin(api, compatible.text)
      await checkManager(api, serviceAccount!, await clientOf(api, compatible.server), { kind: 'none' }, compatible.server)
      const { token } = fakePod(api, 'feast', 'feast-sample-kubernetes-auth')
      const extra = (await heldPermissions(api, token, ['default', ''])).filter((held) => !held.startsWith('create tokenreviews'))
      assert.deepEqual(extra, [
        'get clusterrolebindings.rbac.authorization.k8s.io (cluster)', 'get clusterrolebindings.rbac.authorization.k8s.io default',
        'get clusterroles.rbac.authorization.k8s.io (cluster)', 'get clusterroles.rbac.authorization.k8s.io default',
        'get namespaces (cluster)', 'get namespaces default',
        'list clusterrolebindings.rbac.authorization.k8s.io (cluster)', 'list clusterrolebindings.rbac.authorization.k8s.io default',
        'list clusterroles.rbac.authorization.k8s.io (cluster)', 'list clusterroles.rbac.authorization.k8s.io default',
        'list namespaces (cluster)', 'list namespaces default',
        'list rolebindings.rbac.authorization.k8s.io (cluster)', 'list rolebindings.rbac.authorization.k8s.io default',
        'watch namespaces (cluster)', 'watch namespaces default'
      ])
    })
  })
})

describe('the RBAC objects of operator render for an OIDC store', { skip: missing }, () => {
  test('give its service account create tokenreviews, and nothing else', async () => {
    const run = await runCli(['operator', 'render', '--resource', 'fixtures/operator/featurestore-oidc.yaml', '--secret', 'fixtures/operator/secret-oidc.yaml', '--json'])
    assert.equal(run.code, 0, run.stderr)
    const objects = (JSON.parse(run.stdout) as { rbac: Manifest[] }).rbac
    const [account] = boundServiceAccounts(objects)
    await withCluster(objects, async (api) => {
      const [namespace, name] = account!.split('/') as [string, string]
      assert.deepEqual(await heldPermissions(api, fakePod(api, namespace, name).token, [namespace, '']), [
        'create tokenreviews.authentication.k8s.io (cluster)',
        `create tokenreviews.authentication.k8s.io ${namespace}`
      ])
    })
  })
})

/** The cluster-scoped objects, which two namespaces' stores could overwrite in each other. */
const clusterScoped = (objects: readonly KubeObject[]): Manifest[] => objects.filter((object) => object.kind === 'ClusterRole' || object.kind === 'ClusterRoleBinding') as Manifest[]
const kindAndName = (object: Manifest): string => `${object.kind as string}/${object.metadata.name as string}`
const MODES = {
  kubernetes: (store: string, namespace: string): KubeObject[] => kubernetesRbac(store, namespace, ['feast-reader']),
  oidc: oidcRbac
}

describe('the cluster-scoped names of the rendered RBAC', () => {
  for (const [mode, rbac] of Object.entries(MODES)) {
    test(`in ${mode} mode, stores prod of team-a and prod of team-b share only the ClusterRole, the same object for both`, () => {
      const [a, b] = [clusterScoped(rbac('prod', 'team-a')), clusterScoped(rbac('prod', 'team-b'))]
      const shared = a.filter((object) => b.some((other) => kindAndName(other) === kindAndName(object)))
      assert.deepEqual(shared.map(kindAndName), [`ClusterRole/${mode === 'oidc' ? 'feast-oidc-token-review' : 'feast-authz-token-review'}`])
      assert.deepEqual(b.find((other) => kindAndName(other) === kindAndName(shared[0]!)), shared[0])
    })

    test(`in ${mode} mode, namespace a-b with store c and namespace a with store b-c get two binding names`, () => {
      const bindings = [rbac('c', 'a-b'), rbac('b-c', 'a')].map((objects) => clusterScoped(objects).filter((object) => object.kind === 'ClusterRoleBinding').map(kindAndName))
      assert.notDeepEqual(bindings[0], bindings[1])
    })
  }

  test('a store\'s ClusterRoleBinding is named feast-authz:<namespace>:<store>:<purpose> and labelled with its store and namespace', () => {
    const bindings = [...kubernetesRbac('prod', 'team-a', []), ...oidcRbac('prod', 'team-a')].filter((object) => object.kind === 'ClusterRoleBinding') as Manifest[]
    assert.deepEqual(bindings.map((binding) => [binding.metadata.name, binding.metadata.labels['feast.dev/name'], binding.metadata.labels['feast.dev/namespace']]), [
      ['feast-authz:team-a:prod:token-review', 'prod', 'team-a'],
      ['feast-authz:team-a:prod:oidc-token-review', 'prod', 'team-a']
    ])
  })

  test('feastCompatible keeps the Feast operator\'s binding name, which stores of one name in two namespaces share, as in Feast', () => {
    const [a, b] = ['team-a', 'team-b'].map((namespace) => clusterScoped(kubernetesRbac('prod', namespace, [], { feastCompatible: true })).map(kindAndName))
    assert.deepEqual(a, ['ClusterRole/feast-token-review-cluster-role', 'ClusterRoleBinding/feast-prod-cluster-binding'])
    assert.deepEqual(b, a)
  })

  test('feastCompatible\'s shared binding carries no namespace label, which would name whichever store was applied last', () => {
    const binding = kubernetesRbac('prod', 'team-a', [], { feastCompatible: true }).find((object) => object.kind === 'ClusterRoleBinding') as Manifest
    assert.equal(binding.metadata.labels['feast.dev/name'], 'prod')
    assert.equal('feast.dev/namespace' in binding.metadata.labels, false)
  })

  test('the longest namespace and store names give objects the API server\'s validation accepts, binding names of 157 characters', async () => {
    const [namespace, store] = [`n${'-'.repeat(61)}n`, `${'a'.repeat(31)}.${'b'.repeat(31)}`]
    const api = await startFakeKubeApi({ authorizer: 'rbac' })
    try {
      const objects = clusterScoped([...kubernetesRbac(store, namespace, []), ...oidcRbac(store, namespace)])
      for (const object of objects) {
        const { apiVersion: _, kind, ...json } = object
        if (kind === 'ClusterRole') api.putClusterRole(json as never)
        else api.putClusterRoleBinding(json as never)
      }
      assert.deepEqual(objects.filter((object) => object.kind === 'ClusterRoleBinding').map((object) => (object.metadata.name as string).length), [152, 157])
    } finally {
      await api.close()
    }
  })

  test('a store name or namespace the API server would refuse is refused with the field named, not rendered', () => {
    assert.throws(() => kubernetesRbac('a:b', 'team-a', []), { name: 'OptionError', option: 'store', message: /kubernetesRbac: expected the store's name, .* got "a:b"/ })
    assert.throws(() => oidcRbac('prod', 'team:a'), { name: 'OptionError', option: 'namespace', message: /oidcRbac: expected a namespace name .* got "team:a"/ })
    assert.throws(() => oidcRbac('x'.repeat(64), 'team-a'), { name: 'OptionError', option: 'store' })
  })

  test('a Feast role name the API server would refuse as a Role\'s name is refused with its place named, not rendered', () => {
    for (const role of ['team/admins', '', '..', 'ninety%']) {
      assert.throws(() => kubernetesRbac('prod', 'team-a', ['readers', role]), { name: 'OptionError', option: 'roles[1]', message: /kubernetesRbac: roles\[1\]: expected a Role's name .*, got "/ }, role)
    }
  })

  test('roles that are not a list of strings are refused naming the option, not met as a TypeError', () => {
    assert.throws(() => kubernetesRbac('prod', 'team-a', 'readers' as never), { name: 'OptionError', option: 'roles', message: /kubernetesRbac: roles must be a list of Role names, got "readers"/ })
    assert.throws(() => kubernetesRbac('prod', 'team-a', [42] as never), { name: 'OptionError', option: 'roles[0]' })
  })

  test('a Feast role, one object for every store of the namespace that lists it, renders alike for each and names no store', () => {
    const readers = (store: string): KubeObject | undefined => kubernetesRbac(store, 'team-a', ['readers']).find((object) => object.kind === 'Role' && (object.metadata as { name: string }).name === 'readers')
    // A label naming the store applied last would let kubectl delete -l feast.dev/name=<that store> remove the other's role.
    assert.deepEqual(readers('prod'), readers('staging'))
    assert.equal('feast.dev/name' in ((readers('prod')?.metadata as { labels: Record<string, string> }).labels), false)
  })

  test('a Feast role given twice is one Role', () => {
    const roles = kubernetesRbac('prod', 'team-a', ['readers', 'readers']).filter((object) => object.kind === 'Role' && (object.metadata as { name: string }).name === 'readers')
    assert.equal(roles.length, 1)
  })
})

describe('two stores of one name in two namespaces, each rendered and applied with kubectl', { skip: missing }, () => {
  const resource = (namespace: string): Record<string, unknown> => ({ apiVersion: 'feast.dev/v1', kind: 'FeatureStore', metadata: { name: 'prod', namespace }, spec: { feastProject: 'demo' } })

  test('both service accounts keep TokenReview create, and kubectl get -l feast.dev/namespace finds each store\'s binding', async () => {
    // Both namespaces exist, as where the stores run.
    const api = await startFakeKubeApi({ namespace: 'team-a', serviceNamespace: 'team-b', authorizer: 'rbac' })
    try {
      for (const namespace of ['team-a', 'team-b']) await applyAsAdmin(api, stringify({ apiVersion: 'v1', kind: 'List', items: renderFeatureStore(resource(namespace)).rbac }))
      for (const namespace of ['team-a', 'team-b']) {
        assert.ok((await heldPermissions(api, fakePod(api, namespace, 'feast-prod').token, [''])).includes('create tokenreviews.authentication.k8s.io (cluster)'), `${namespace}/feast-prod may create TokenReviews`)
      }
      const admin = await api.writeKubeconfig({ name: 'admin', token: api.adminToken })
      const found = await runKubectl(api, ['get', 'clusterrolebindings', '-l', 'feast.dev/name=prod,feast.dev/namespace=team-a', '-o', 'jsonpath={.items[*].metadata.name} {.items[*].subjects[*].namespace}'], admin)
      assert.equal(found.code, 0, found.stderr)
      assert.equal(found.stdout, 'feast-authz:team-a:prod:token-review team-a')
    } finally {
      await api.close()
    }
  })
})
