/**
 * The reference server over a Feast registry file: Feast's UI sample registry (read where it is),
 * and registries with permissions built in the test; `buildReferenceServer` and `feast-authz serve
 * --registry <file.db>`, on 127.0.0.1 with real tokens.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { before, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { ConfigError } from '../../src/config/errors.ts'
import { permission, roleBasedPolicy } from '../../src/permissions/define.ts'
import { openFeastRegistry } from '../../src/registry/index.ts'
import { buildReferenceServer, type ReferenceServerOptions } from '../../src/server/app.ts'
import { loadYamlCatalogFile } from '../../src/server/catalog-yaml.ts'
import { oidcAuth } from '../helpers/authz-app.ts'
import { registryBytes, replaceFile, SAMPLE_REGISTRY } from '../helpers/registry-builder.ts'
import { useUsers, RELOAD_WAIT, storeDir, TWO_PROJECTS, type StoreDir, type User } from '../helpers/registry-wiring.ts'
import { eventually } from '../helpers/eventually.ts'
import { captureLogs } from '../helpers/logs.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const SAMPLE_PROJECT = 'credit_scoring_aws'
const SAMPLE_VIEWS = ['credit_history', 'zipcode_features', 'zipcode_money_features', 'transaction_gt_last_credit_card_due']

const users = useUsers()
const { cleanups } = users

interface Reply { status: number, body: any }
type Call = (method: 'GET' | 'POST', path: string, user?: User, body?: unknown) => Promise<Reply>

async function start (options: ReferenceServerOptions): Promise<{ app: FastifyInstance, call: Call }> {
  const app = await buildReferenceServer(options)
  const url = await app.listen({ host: '127.0.0.1', port: 0 })
  cleanups.push(async () => { await app.close() })
  return { app, call: async (method, path, user, body) => await request(url, method, path, user, body) }
}

async function request (url: string, method: 'GET' | 'POST', path: string, user?: User, body?: unknown): Promise<Reply> {
  const headers: Record<string, string> = {}
  if (user !== undefined) headers.authorization = `Bearer ${users.tokens[user]}`
  if (body !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(`${url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
  const text = await response.text()
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) }
}

const viewNames = (reply: Reply): string[] => (reply.body.featureViews as Array<{ spec: { name: string } }>).map((view) => view.spec.name)
const CREDIT_READ = { features: ['credit_history:credit_card_due', 'credit_history:missed_payments_1y'], entities: { dob_ssn: ['19530219_5179', '19520816_8737'] } }

describe('the reference server over Feast\'s UI sample registry', () => {
  test('with no_auth, the registry named in feature_store.yaml is served: its feature views are listed', async () => {
    const { call } = await start({ config: { project: SAMPLE_PROJECT, registry: SAMPLE_REGISTRY, auth: { type: 'no_auth' } } })
    const reply = await call('GET', '/api/v1/feature_views')
    assert.equal(reply.status, 200)
    assert.deepEqual(viewNames(reply).sort(), [...SAMPLE_VIEWS].sort())
    const history = (reply.body.featureViews as Array<{ type: string, spec: { name: string, project: string, entities: string[], tags: Record<string, string> } }>).find((view) => view.spec.name === 'credit_history')
    assert.equal(history?.type, 'FeatureView')
    assert.equal(history?.spec.project, SAMPLE_PROJECT)
    assert.deepEqual(history?.spec.entities, ['dob_ssn'])
    assert.equal(history?.spec.tags.access_group, 'feast-team@feast.ai')
  })

  test('with no_auth, online reads answer in Feast\'s shape, every value absent with status NOT_FOUND', async () => {
    const { call } = await start({ config: { project: SAMPLE_PROJECT, registry: SAMPLE_REGISTRY, auth: { type: 'no_auth' } } })
    const reply = await call('POST', '/get-online-features', undefined, CREDIT_READ)
    assert.equal(reply.status, 200)
    assert.deepEqual(reply.body.metadata.feature_names, ['dob_ssn', 'credit_card_due', 'missed_payments_1y'])
    assert.deepEqual(reply.body.results[1], { values: [null, null], statuses: ['NOT_FOUND', 'NOT_FOUND'], event_timestamps: ['1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z'] })
    assert.deepEqual(reply.body.results[2].statuses, ['NOT_FOUND', 'NOT_FOUND'])
  })

  test('with oidc and a registry given as an option: 401 without a token, 200 with one (the sample defines no permissions)', async () => {
    const registry = openFeastRegistry({ path: SAMPLE_REGISTRY, project: SAMPLE_PROJECT })
    cleanups.push(() => { registry.close() })
    const { call } = await start({ config: { project: SAMPLE_PROJECT, auth: oidcAuth(users.provider) }, registry })
    assert.equal((await call('GET', '/api/v1/feature_views')).status, 401)
    const listed = await call('GET', '/api/v1/feature_views', 'stranger')
    assert.equal(listed.status, 200)
    assert.equal(viewNames(listed).length, SAMPLE_VIEWS.length)
    const read = await call('POST', '/get-online-features', 'stranger', { feature_service: 'credit_score_v1', entities: { dob_ssn: ['19530219_5179'], zipcode: [30721] } })
    assert.equal(read.status, 200)
    assert.deepEqual(read.body.results[2].statuses, ['NOT_FOUND'])
  })
})

describe('the reference server over a registry with permissions, in two projects', () => {
  let store: StoreDir
  let call: Call
  before(async () => {
    store = storeDir(oidcAuth(users.provider))
    cleanups.push(store.cleanup)
    ;({ call } = await start({ config: store.config }))
  })

  const READ = { features: ['driver_stats:conv_rate'], entities: { driver: [1001] } }

  test('the registry\'s permissions are enforced: the reader reads, the stranger gets 403', async () => {
    const read = await call('POST', '/get-online-features', 'reader', READ)
    assert.equal(read.status, 200)
    assert.deepEqual(read.body.results[1].statuses, ['NOT_FOUND'])
    assert.equal((await call('POST', '/get-online-features', 'stranger', READ)).status, 403)
  })

  test('?project= lists another project\'s views under that project\'s permissions', async () => {
    const listed = await call('GET', '/api/v1/feature_views?project=other', 'auditor')
    assert.equal(listed.status, 200)
    assert.deepEqual(viewNames(listed), ['audit_log'])
    assert.equal(listed.body.featureViews[0].spec.project, 'other')
    assert.equal((await call('GET', '/api/v1/feature_views?project=other', 'reader')).status, 403)
    assert.equal((await call('GET', '/api/v1/feature_views', 'auditor')).status, 403)
  })

  test('?project= on an online route reads that project\'s views under its permissions', async () => {
    const body = { features: ['audit_log:events'], entities: { driver: [1] } }
    assert.equal((await call('POST', '/get-online-features?project=other', 'auditor', body)).status, 403, 'auditors may describe, not read')
    assert.equal((await call('POST', '/get-online-features?project=other', 'reader', body)).status, 403, 'the readers permission is the home project\'s only')
    assert.equal((await call('POST', '/get-online-features', 'reader', body)).status, 404, 'not a view of the server\'s project')
  })

  test('a project the registry does not have is a 404 for everyone: nothing is served, nothing allowed', async () => {
    for (const user of ['reader', 'auditor', 'stranger'] as const) {
      assert.equal((await call('GET', '/api/v1/feature_views?project=no_such_project', user)).status, 404, user)
      assert.equal((await call('POST', '/get-online-features?project=no_such_project', user, READ)).status, 404, user)
    }
  })

  test('a repeated project parameter is refused (422), never one of them picked', async () => {
    assert.equal((await call('GET', '/api/v1/feature_views?project=demo&project=other', 'auditor')).status, 422)
  })
})

describe('the reference server and projects without permissions', () => {
  test('names at startup the projects of its registry that no permission protects, its own first', async () => {
    const store = storeDir(oidcAuth(users.provider), { ...TWO_PROJECTS, projects: ['other', 'open', 'demo'], permissions: { other: TWO_PROJECTS.permissions?.other ?? [] } })
    cleanups.push(store.cleanup)
    const { logger, lines } = captureLogs()
    const app = await buildReferenceServer({ config: store.config, logger })
    cleanups.push(async () => { await app.close() })
    const warnings = lines.filter((line) => line.level === 40 && line.msg.startsWith('No permissions defined'))
    assert.deepEqual(warnings.map((line) => line.projects), [['demo', 'open']])
    assert.match(warnings[0]?.msg ?? '', /full access to project "demo" \(the server's own\) and project "open"/)
  })
})

describe('the reference server follows the registry file while serving', () => {
  test('a feature view added to the file is served without a restart; a corrupt file keeps the last good one', async () => {
    const store = storeDir({ type: 'no_auth' })
    cleanups.push(store.cleanup)
    const { logger, lines } = captureLogs()
    const { call } = await start({ config: store.config, logger })
    assert.deepEqual(viewNames(await call('GET', '/api/v1/feature_views')), ['driver_stats'])
    replaceFile(store.registry, registryBytes({ ...TWO_PROJECTS, featureViews: [...TWO_PROJECTS.featureViews ?? [], { name: 'driver_trips', project: 'demo' }] }))
    await eventually(async () => viewNames(await call('GET', '/api/v1/feature_views')).length === 2, 'the new view is listed', RELOAD_WAIT)
    replaceFile(store.registry, 'not a registry')
    await eventually(async () => lines.some((line) => line.level === 50 && line.registry === store.registry), 'the failed reload is logged', RELOAD_WAIT)
    assert.deepEqual(viewNames(await call('GET', '/api/v1/feature_views')).sort(), ['driver_stats', 'driver_trips'])
  })

  test('explicit permissions win over the registry\'s', async () => {
    const store = storeDir(oidcAuth(users.provider))
    cleanups.push(store.cleanup)
    const strangers = permission({ name: 'everyone-reads', types: ['FeatureView'], actions: ['READ_ONLINE'], policy: roleBasedPolicy([]) })
    const { call } = await start({ config: store.config, permissions: [strangers] })
    assert.equal((await call('POST', '/get-online-features', 'reader', { features: ['driver_stats:conv_rate'], entities: { driver: [1] } })).status, 403)
  })

  test('a YAML registry given as the registry option is served, under the permissions of the Feast registry feature_store.yaml names', async () => {
    const store = storeDir(oidcAuth(users.provider))
    cleanups.push(store.cleanup)
    const yaml = 'project: demo\nfeature_views:\n  - {name: yaml_view, kind: FeatureView, entities: [driver], features: [conv_rate]}\n'
    const { call } = await start({ config: store.config, registry: loadYamlCatalogFile({ yaml, source: 'registry.yaml' }) })
    const listed = await call('GET', '/api/v1/feature_views', 'reader')
    assert.equal(listed.status, 200)
    assert.deepEqual(viewNames(listed), ['yaml_view'])
    assert.equal((await call('GET', '/api/v1/feature_views', 'stranger')).status, 403)
  })

  test('an unsupported registry type in feature_store.yaml is a startup error', async () => {
    const store = storeDir({ type: 'no_auth' }, TWO_PROJECTS, { registry_type: 'snowflake.registry', path: 'db.schema' })
    cleanups.push(store.cleanup)
    await assert.rejects(buildReferenceServer({ config: store.config }), (error: unknown) => error instanceof ConfigError && error.message.includes(store.config) && /"snowflake.registry" is not supported yet/.test(error.message))
  })
})

describe('feast-authz serve --registry <Feast registry file>', () => {
  test('serves the sample registry\'s feature views and stops cleanly on SIGTERM', async () => {
    const store = storeDir({ type: 'no_auth' })
    cleanups.push(store.cleanup)
    const config = join(store.dir, 'sample_store.yaml')
    writeFileSync(config, `project: ${SAMPLE_PROJECT}\nauth:\n  type: no_auth\n`)
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--config', config, '--registry', SAMPLE_REGISTRY, '--port', '0', '--log-level', 'warn'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] })
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8') })
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const check = (): void => {
          const found = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr)?.[1]
          if (found !== undefined) resolve(found)
        }
        child.stderr.on('data', check)
        void exited.then(() => { reject(new Error(`serve exited: ${stderr}`)) })
      })
      const listed = await request(url, 'GET', '/api/v1/feature_views')
      assert.equal(listed.status, 200)
      assert.deepEqual(viewNames(listed).sort(), [...SAMPLE_VIEWS].sort())
      const read = await request(url, 'POST', '/get-online-features', undefined, CREDIT_READ)
      assert.deepEqual(read.body.results[1].statuses, ['NOT_FOUND', 'NOT_FOUND'])
    } finally {
      child.kill('SIGTERM')
    }
    assert.equal(await exited, 0)
  })
})
