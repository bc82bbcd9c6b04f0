/**
 * Watch streams a correct API server never sends, written into the informers' open watches by
 * the fake API server (`injectWatch`, `floodWatch`): a line that is not an event, one without
 * end, an event of another kind or namespace. None is skipped in silence, for a skipped event
 * leaves the view behind the server's (a lost DELETED keeps a grant): the watch fails and the
 * informers list again. Nothing of such an event reaches the roles.
 */
import assert from 'node:assert/strict'
import { after, afterEach, before, describe, test } from 'node:test'
import { feastRoleMarker } from '../../../src/base/feast-role-marker.ts'
import type { AuthManager } from '../../../src/managers/types.ts'
import { feastRole, jwsToken, roleBinding, serviceAccountIdentity, startFakeKubeApi, type FakeKubeApi, type FakeKind } from '../../helpers/fake-kube-api.ts'
import { managerFor } from '../../helpers/kubernetes.ts'
import { captureLogs, type CapturedLogs } from '../../helpers/logs.ts'
import { eventually } from '../../helpers/eventually.ts'

const RBAC = 'rbac.authorization.k8s.io/v1'
const FAST = { requestTimeoutMs: 2000, informer: { restartBackoffMs: { initial: 50, max: 200 }, watchTimeoutSeconds: 60, staleAfterMs: 20_000 } }
const event = (type: string, object: unknown): string => `${JSON.stringify({ type, object })}\n`

describe('watch streams a correct API server never sends', () => {
  let api: FakeKubeApi
  let manager: AuthManager
  let logs: CapturedLogs
  const alice = jwsToken('alice')
  const restarts = (): number => manager.health().detail.informerRestarts as number
  const rolesOfAlice = async (): Promise<readonly string[]> => (await manager.authenticate(alice)).roles
  /**
   * Writes `text` into the open watch of `kind` once it is open, waits for the informers to
   * restart (or, had they taken the event, for alice's roles to change), and checks that the
   * roles never changed and the informers sync again.
   */
  const injectAndExpectRestart = async (kind: FakeKind, text: string): Promise<void> => {
    await eventually(() => api.openWatches(kind) === 1, `the ${kind} watch to be open`)
    const before = restarts()
    assert.equal(api.injectWatch(kind, text), 1)
    let roles: readonly string[] = ['reader']
    await eventually(async () => restarts() > before || (roles = await rolesOfAlice()).join() !== 'reader', 'the informers to restart')
    assert.deepEqual(roles, ['reader'], 'the event changed the roles')
    await eventually(() => manager.health().ready, 'the informers to sync again')
  }

  before(async () => {
    api = await startFakeKubeApi({ namespace: 'feast' })
    api.addToken(alice, serviceAccountIdentity('apps', 'alice'))
    api.putRole(feastRole('feast', 'reader'))
    api.putRoleBinding(roleBinding('feast', 'alice-reader', 'reader', [{ kind: 'ServiceAccount', name: 'alice', namespace: 'apps' }]))
    // `admin` is a Role of no namespace: this binding grants nothing on a correct server.
    api.putRoleBinding(roleBinding('feast', 'alice-admin', 'admin', [{ kind: 'ServiceAccount', name: 'alice', namespace: 'apps' }]))
    logs = captureLogs()
    manager = managerFor(api, { logger: logs.logger, tuning: FAST })
    await manager.warmUp?.()
    assert.deepEqual(await rolesOfAlice(), ['reader'])
  })
  afterEach(async () => {
    await eventually(() => manager.health().ready, 'the informers to be synced after the test')
    assert.deepEqual(await rolesOfAlice(), ['reader'], 'the roles are what the server holds')
  })
  after(async () => {
    await manager?.close()
    await api?.close()
  })

  test('a line that is not JSON fails the watch and the informers list again', async () => {
    api.resetCalls()
    await injectAndExpectRestart('rolebindings', '{"type":"DELETED","object":{"kind":"RoleBinding","metadata":{"name":"alice-rea\n')
    assert.ok(api.calls.roleBindingLists >= 1, 'listed again')
    assert.ok(logs.lines.some((line) => /not JSON/.test(String(line.reason))), 'the log says why')
  })

  test('a line of 100 MiB without a newline is cut off early, and the informers list again', async () => {
    await eventually(() => api.openWatches('rolebindings') === 1, 'the watch to be open')
    const before = restarts()
    const written = await api.floodWatch('rolebindings', 100 * 1024 * 1024)
    assert.ok(written < 48 * 1024 * 1024, `${written} bytes were read before the watch gave up`)
    await eventually(() => restarts() > before, 'the informers to restart')
  })

  test('an event whose object is of another kind fails the watch: a Role in the RoleBinding watch never deletes a binding', async () => {
    await injectAndExpectRestart('rolebindings', event('MODIFIED', { kind: 'Role', apiVersion: RBAC, metadata: { name: 'alice-reader', namespace: 'feast', resourceVersion: '999999' }, rules: [] }))
  })

  test('an event of another namespace fails the watch: its Role never grants a role here', async () => {
    await injectAndExpectRestart('roles', event('ADDED', { kind: 'Role', apiVersion: RBAC, metadata: { name: 'admin', namespace: 'elsewhere', resourceVersion: '999999' }, rules: [feastRoleMarker('admin')] }))
  })

  test('an ADDED event for a binding already held fails the watch: a resumed watch replaying the current state would hide deletions', async () => {
    const held = { kind: 'RoleBinding', apiVersion: RBAC, metadata: { name: 'alice-reader', namespace: 'feast', resourceVersion: '1' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' }, subjects: [{ kind: 'ServiceAccount', name: 'alice', namespace: 'apps' }] }
    await injectAndExpectRestart('rolebindings', event('ADDED', held))
    assert.ok(logs.lines.some((line) => /replaying the current state/.test(String(line.reason))), 'the log says why')
  })

  test('an event of an unknown type fails the watch', async () => {
    await injectAndExpectRestart('roles', event('REPLACED', { kind: 'Role', apiVersion: RBAC, metadata: { name: 'reader', namespace: 'feast' } }))
  })

  test('an ERROR event with a 410 lists again, without a restart', async () => {
    await eventually(() => api.openWatches('rolebindings') === 1, 'the watch to be open')
    const before = { restarts: restarts(), lists: api.calls.roleBindingLists }
    api.injectWatch('rolebindings', event('ERROR', { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'too old resource version', reason: 'Expired', code: 410 }))
    await eventually(() => api.calls.roleBindingLists > before.lists, 'a new list')
    assert.equal(restarts(), before.restarts)
  })

  test('a BOOKMARK without resourceVersion changes nothing: the watch resumes from the last version it had', async () => {
    await eventually(() => api.openWatches('roles') === 1, 'the watch to be open')
    const before = { restarts: restarts(), version: api.lastWatchQuery('roles')?.resourceVersion }
    api.injectWatch('roles', event('BOOKMARK', { kind: 'Role', apiVersion: RBAC, metadata: {} }))
    api.compact() // ends the watch with an ERROR 410: the informer lists again and watches from the new list
    await eventually(() => api.lastWatchQuery('roles')?.resourceVersion !== before.version, 'a new watch')
    assert.match(api.lastWatchQuery('roles')?.resourceVersion ?? '', /^\d+$/, 'never from no version')
    assert.equal(restarts(), before.restarts)
  })
})
