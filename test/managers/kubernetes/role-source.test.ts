/**
 * RoleBinding and Role lists a correct API server never gives, from the fake API server's opt-in
 * lies: the roles are never read from such a list. A request that needs one (a direct list, as
 * before the first sync) gets a 503; the informers never report it synced.
 */
import assert from 'node:assert/strict'
import { after, afterEach, before, describe, test } from 'node:test'
import { feastRoleMarker } from '../../../src/base/feast-role-marker.ts'
import { AuthError } from '../../../src/base/errors.ts'
import type { AuthManager } from '../../../src/managers/types.ts'
import { feastRole, jwsToken, roleBinding, rulelessRole, serviceAccountIdentity, startFakeKubeApi, type FakeKubeApi, type FakeKind } from '../../helpers/fake-kube-api.ts'
import { KUBERNETES_CONFIG, managerFor } from '../../helpers/kubernetes.ts'
import { captureLogs, type CapturedLogs } from '../../helpers/logs.ts'
import { expectError } from '../../helpers/errors.ts'

type Answer = Record<string, any>
const TUNING = { requestTimeoutMs: 2000, informer: { restartBackoffMs: { initial: 50, max: 200 } } }

describe('RoleBinding and Role lists a correct API server never gives', () => {
  let api: FakeKubeApi
  let logs: CapturedLogs
  const managers: AuthManager[] = []
  /** A manager of its own, listing directly (as before the first sync) or with its informers. */
  const manager = (options: { informers?: boolean, allowRuleless?: boolean } = {}): AuthManager => {
    const created = managerFor(api, {
      logger: logs.logger,
      tuning: TUNING,
      oneShot: options.informers !== true,
      config: { ...KUBERNETES_CONFIG, allow_ruleless_roles: options.allowRuleless === true }
    })
    managers.push(created)
    return created
  }
  const lie = (kind: FakeKind, rewrite: (answer: Answer) => unknown): void => { api.setFault(kind, { rewrite }) }
  const unavailable = { type: AuthError, code: 'cluster_unavailable', status: 503 }
  const alice = jwsToken('alice-token')
  /** Alice's roles, as a manager of its own gives them. */
  const rolesFrom = async (created: AuthManager): Promise<readonly string[]> => (await created.authenticate(alice)).roles

  before(async () => {
    api = await startFakeKubeApi({ namespace: 'feast' })
    api.addToken(alice, serviceAccountIdentity('apps', 'alice'))
    api.putRole(feastRole('feast', 'reader'))
    api.putRole(rulelessRole('feast', 'legacy'))
    api.putRoleBinding(roleBinding('feast', 'alice-reader', 'reader', [{ kind: 'ServiceAccount', name: 'alice', namespace: 'apps' }]))
    // `admin` exists in no namespace as a Role: this binding grants nothing on a correct server.
    api.putRoleBinding(roleBinding('feast', 'alice-admin', 'admin', [{ kind: 'ServiceAccount', name: 'alice', namespace: 'apps' }]))
    logs = captureLogs()
    assert.deepEqual(await rolesFrom(manager()), ['reader'], 'a correct list grants reader only')
  })
  afterEach(async () => {
    api.setFault('rolebindings', undefined)
    api.setFault('roles', undefined)
    await Promise.all(managers.splice(0).map(async (created) => { await created.close() }))
  })
  after(async () => { await api?.close() })

  test('items: null is a 503', async () => {
    lie('rolebindings', (answer) => ({ ...answer, items: null }))
    await expectError(rolesFrom(manager()), unavailable)
  })

  test('a Role of another namespace in the list is a 503, never the marker it holds', async () => {
    lie('roles', (answer) => ({ ...answer, items: [...answer.items, { metadata: { name: 'admin', namespace: 'elsewhere' }, rules: [feastRoleMarker('admin')] }] }))
    await expectError(rolesFrom(manager()), unavailable)
  })

  test('a RoleBinding in the list of Roles is a 503, never a rule-less Role of that name', async () => {
    lie('roles', (answer) => ({ ...answer, items: [...answer.items, { kind: 'RoleBinding', metadata: { name: 'admin', namespace: 'feast' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'legacy' } }] }))
    await expectError(rolesFrom(manager({ allowRuleless: true })), unavailable)
  })

  test('a list of another kind is a 503', async () => {
    lie('rolebindings', (answer) => ({ ...answer, kind: 'RoleList' }))
    await expectError(rolesFrom(manager()), unavailable)
  })

  test('a subject whose name is not a string is a 503', async () => {
    lie('rolebindings', (answer) => ({ ...answer, items: answer.items.map((item: Answer) => ({ ...item, subjects: [{ kind: 'ServiceAccount', name: ['alice'], namespace: 'apps' }] })) }))
    await expectError(rolesFrom(manager()), unavailable)
  })

  test('rules given as a string are a 503, never read letter by letter', async () => {
    lie('roles', (answer) => ({ ...answer, items: answer.items.map((item: Answer) => ({ ...item, rules: '' })) }))
    await expectError(rolesFrom(manager({ allowRuleless: true })), unavailable)
  })

  test('an answer of 256 MiB is a 503, and the client stops reading early', async () => {
    api.resetCalls()
    api.setFault('rolebindings', { padding: 256 * 1024 * 1024 })
    await expectError(rolesFrom(manager()), unavailable)
    assert.ok(api.calls.paddingBytesSent < 96 * 1024 * 1024, `the client read ${api.calls.paddingBytesSent} bytes of padding`)
  })

  test('a list without a resourceVersion is never watched from: the informers do not sync', async () => {
    // A watch from no version replays the current state as ADDED events and never the deletions since the list.
    lie('rolebindings', (answer) => ({ ...answer, metadata: {} }))
    const watching = manager({ informers: true })
    await watching.warmUp?.()
    assert.equal(watching.health().ready, false)
    assert.ok(logs.lines.some((line) => /resourceVersion/.test(String(line.reason))), 'the log says what is missing')
  })

  test('the unusable answer is logged with the field at fault, and the request gets the public message only', async () => {
    lie('roles', (answer) => ({ ...answer, items: [{ metadata: { name: 'admin', namespace: 'elsewhere' } }] }))
    await expectError(rolesFrom(manager()), { ...unavailable, message: 'the Kubernetes API server gave no usable answer' })
    assert.ok(logs.lines.some((line) => String(line.reason).includes('items[0].metadata.namespace')), 'the log names the field')
  })
})
