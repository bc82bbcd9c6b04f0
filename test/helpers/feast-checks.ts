/**
 * One scenario for "the reference server checks what Feast's feature server checks, in the same
 * order" (issue 17), served by both the Fastify reference server and the Express example of
 * docs/reference-server.md: a store directory (feature_store.yaml, permissions.yaml,
 * registry.yaml), users with one role each, and a caller for either server's URL.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before } from 'node:test'
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import { stringify } from 'yaml'
import type { FeastRegistry } from '../../src/registry/feast-registry.ts'
import { buildReferenceServer } from '../../src/server/app.ts'
import type { FeatureCatalog } from '../../src/server/catalog.ts'
import { oidcAuth } from './authz-app.ts'
import { startOidcProvider, type TestProvider } from './oidc-provider.ts'

/** Views of a credit-scoring project, one per case Feast treats apart. */
export const REGISTRY_YAML = `
project: credit
feature_views:
  - name: credit_history
    entities: [dob_ssn]
    features: [credit_card_due, missed_payments]
  - name: zipcode_features
    entities: [zipcode]
    features: [population]
  - name: live_payments
    kind: StreamFeatureView
    entities: [dob_ssn]
    features: [payments_today]
  - name: batch_scores
    kind: BatchFeatureView
    entities: [dob_ssn]
    features: [score]
  - name: offline_only
    entities: [dob_ssn]
    features: [archived]
    online: false
  - name: written_offline
    entities: [dob_ssn]
    features: [history]
    online: false
    offline: true
  - name: retired_scores
    entities: [dob_ssn]
    features: [old_score]
    enabled: false
  - name: transaction_gt_last_credit_card_due
    kind: OnDemandFeatureView
    entities: [dob_ssn]
    features: [transaction_gt_last_credit_card_due]
    sources: [credit_history]
    write_to_online_store: true
  - name: zipcode_density
    kind: OnDemandFeatureView
    entities: [zipcode]
    features: [density]
    sources: [zipcode_features]
  - name: loan_labels
    kind: LabelView
    entities: [dob_ssn]
    features: [defaulted]
  # Its join key is named like an integer, which a parsed JSON object puts before every other key.
  - name: branch_labels
    kind: LabelView
    entities: ["7"]
    features: [audited]
feature_services:
  - name: credit_service
    features: [credit_history:credit_card_due, transaction_gt_last_credit_card_due]
sample_rows:
  credit_history:
    - {dob_ssn: "19530219_5179", credit_card_due: 8419, missed_payments: 1}
  transaction_gt_last_credit_card_due:
    - {dob_ssn: "19530219_5179", transaction_gt_last_credit_card_due: false}
  # A key of 2^53 (a YAML number is a double; this one it holds exactly), where 2^53 + 1 reads as 2^53 to JSON.parse.
  zipcode_features:
    - {zipcode: 9007199254740992, population: 5}
`

const role = (
  name: string,
  roles: readonly string[],
  types: readonly string[],
  actions: readonly string[],
  namePatterns?: readonly string[]
): Record<string, unknown> => ({
  name, types, actions, ...(namePatterns === undefined ? {} : { name_patterns: namePatterns }), policy: { role_based_policy: { roles } }
})

/** Each role holds exactly what its name says. */
export const PERMISSIONS = [
  role('reader', ['reader'], ['FeatureView', 'OnDemandFeatureView', 'LabelView', 'FeatureService'], ['READ_ONLINE']),
  role('on-demand-only', ['odfv_reader'], ['OnDemandFeatureView'], ['READ_ONLINE']),
  role('zipcode-only', ['zip_reader'], ['FeatureView', 'OnDemandFeatureView'], ['READ_ONLINE'], ['zipcode_.*']),
  role('service-only', ['service_reader'], ['FeatureService'], ['READ_ONLINE']),
  role('writer', ['writer'], ['FeatureView', 'OnDemandFeatureView', 'LabelView'], ['WRITE_ONLINE']),
  role('describer', ['describer'], ['FeatureView', 'OnDemandFeatureView', 'LabelView'], ['DESCRIBE'])
]

export const USERS = ['reader', 'odfv_reader', 'zip_reader', 'service_reader', 'writer', 'describer', 'nobody'] as const
export type User = typeof USERS[number]

export interface StoreFiles {
  readonly dir: string
  readonly config: string
  readonly permissions: string
  readonly registry: string
  cleanup (): void
}

/** Writes the scenario's files for an OIDC store whose provider is `provider`. */
export function writeStore (provider: TestProvider): StoreFiles {
  const dir = mkdtempSync(join(tmpdir(), 'feast-authz-checks-'))
  const files = { config: join(dir, 'feature_store.yaml'), permissions: join(dir, 'permissions.yaml'), registry: join(dir, 'registry.yaml') }
  writeFileSync(files.config, stringify({ project: 'credit', auth: oidcAuth(provider) }))
  writeFileSync(files.permissions, stringify(PERMISSIONS))
  writeFileSync(files.registry, REGISTRY_YAML)
  return { dir, ...files, cleanup: () => { rmSync(dir, { recursive: true, force: true }) } }
}

/** A token per user, each with the one role named like it (`nobody` has none). */
export async function issueTokens (provider: TestProvider): Promise<Record<User, string>> {
  const tokens = {} as Record<User, string>
  for (const user of USERS) {
    tokens[user] = await provider.issue({ preferred_username: user, resource_access: { [provider.clientId]: { roles: user === 'nobody' ? [] : [user] } } })
  }
  return tokens
}

export interface Reply { readonly status: number, readonly body: any, readonly text: string }

/** Posts a JSON body (an object, or raw text) as `user`, labelled `contentType` (`null`: no Content-Type at all). */
export async function postAs (base: string, token: string, path: string, body: unknown, contentType: string | null = 'application/json'): Promise<Reply> {
  const text = typeof body === 'string' ? body : JSON.stringify(body)
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, ...(contentType === null ? {} : { 'content-type': contentType }) },
    // As bytes: fetch labels a string body text/plain when no Content-Type is given.
    body: new TextEncoder().encode(text)
  })
  const answer = await response.text()
  let parsed: unknown
  try { parsed = JSON.parse(answer) } catch { parsed = undefined }
  return { status: response.status, body: parsed, text: answer }
}

/** A JSON text of `depth` nested lists around `1`: built as text, it needs no recursion. */
export function nestedList (depth: number): string {
  return `${'['.repeat(depth)}1${']'.repeat(depth)}`
}

export interface Served {
  readonly base: string
  readonly tokens: Record<User, string>
}

/** The registry a reference server of the scenario serves, and how to close it. */
export interface ServedRegistry {
  readonly registry: FeatureCatalog | FeastRegistry
  close? (): void
}

/**
 * Before the suite's tests: a real provider, a token per user, the scenario's store and the
 * reference server over the registry `open` gives for it, listening on 127.0.0.1; all closed
 * after them. The object it returns is read inside tests only.
 */
export function useReferenceServer (open: (store: StoreFiles) => ServedRegistry): Served {
  let provider: TestProvider | undefined
  let store: StoreFiles | undefined
  let served: ServedRegistry | undefined
  let app: FastifyInstance | undefined
  let running: Served | undefined
  before(async () => {
    provider = await startOidcProvider()
    const tokens = await issueTokens(provider)
    store = writeStore(provider)
    served = open(store)
    app = await buildReferenceServer({ config: store.config, permissions: store.permissions, registry: served.registry })
    running = { base: await app.listen({ host: '127.0.0.1', port: 0 }), tokens }
  })
  after(async () => {
    await app?.close()
    served?.close?.()
    await provider?.close()
    store?.cleanup()
  })
  const current = (): Served => {
    if (running === undefined) throw new Error('useReferenceServer: the server starts in the suite\'s before hook; use it inside a test')
    return running
  }
  return { get base () { return current().base }, get tokens () { return current().tokens } }
}

const READ_CREDIT = { features: ['credit_history:credit_card_due'], entities: { dob_ssn: ['19530219_5179'] } }
const READ_ON_DEMAND = { features: ['transaction_gt_last_credit_card_due:transaction_gt_last_credit_card_due'], entities: { dob_ssn: ['19530219_5179'] } }
const SERVICE = { feature_service: 'credit_service', entities: { dob_ssn: ['19530219_5179'] } }

/**
 * The get-online-features cases every server of the scenario must hold (Fastify reference server
 * and Express example alike); `served()` is called inside each test, once the server is up.
 */
export function defineReadChecks (served: () => Served): Record<string, () => Promise<void>> {
  const post = async (user: User, body: unknown, contentType?: string | null): Promise<Reply> => {
    const { base, tokens } = served()
    return await postAs(base, tokens[user], '/get-online-features', body, contentType)
  }
  const assertDenied = (reply: Reply, resource: string, ...secrets: string[]): void => {
    assert.equal(reply.status, 403, reply.text)
    assert.equal(reply.body.message, `Permission denied: [READ_ONLINE] on ${resource}`)
    for (const secret of secrets) assert.ok(!reply.text.includes(secret), `the 403 reveals ${secret}: ${reply.text}`)
  }
  return {
    'READ_ONLINE on an on-demand view alone does not read it: the feature view it reads is checked too': async () => {
      assertDenied(await post('odfv_reader', READ_ON_DEMAND), 'FeatureView:credit_history')
    },
    'with READ_ONLINE on the on-demand view and its source, the on-demand view is read': async () => {
      const reply = await post('reader', READ_ON_DEMAND)
      assert.equal(reply.status, 200, reply.text)
      assert.deepEqual(reply.body.results.map((column: { values: unknown[] }) => column.values), [['19530219_5179'], [false]])
    },
    'a permission scoped by name covers an on-demand view only together with its source': async () => {
      const reply = await post('zip_reader', { features: ['zipcode_density:density'], entities: { zipcode: [94107] } })
      assert.equal(reply.status, 200, reply.text)
      assertDenied(await post('zip_reader', READ_ON_DEMAND), 'FeatureView:credit_history')
    },
    'with a feature service, the service alone is checked, as in Feast': async () => {
      const reply = await post('service_reader', SERVICE)
      assert.equal(reply.status, 200, reply.text)
      assert.deepEqual(reply.body.metadata.feature_names, ['dob_ssn', 'credit_card_due', 'transaction_gt_last_credit_card_due'])
      assertDenied(await post('service_reader', READ_CREDIT), 'FeatureView:credit_history')
    },
    'a JSON body sent as text/plain or as a form is 415, never left unread and answered 422': async () => {
      for (const contentType of ['text/plain', 'application/x-www-form-urlencoded']) {
        const reply = await post('reader', SERVICE, contentType)
        assert.equal(reply.status, 415, `${contentType}: ${reply.text}`)
        assert.match(reply.body.message, /application\/json/)
      }
    },
    'a JSON body labelled application/<name>+json is read, as Feast reads it': async () => {
      const reply = await post('service_reader', SERVICE, 'application/vnd.feast+json')
      assert.equal(reply.status, 200, reply.text)
    },
    'a JSON body without Content-Type is read, as Feast reads what Python requests.post(data=...) sends': async () => {
      const reply = await post('service_reader', SERVICE, null)
      assert.equal(reply.status, 200, reply.text)
    },
    'a JSON body labelled with a charset other than UTF-8 is 415, never read in another encoding than the label says': async () => {
      for (const contentType of ['application/json; charset=utf-16', 'application/json; charset="ISO-8859-1"']) {
        const reply = await post('service_reader', SERVICE, contentType)
        assert.equal(reply.status, 415, `${contentType}: ${reply.text}`)
        assert.match(reply.body.message, /UTF-8/)
      }
      assert.equal((await post('service_reader', SERVICE, 'application/json; charset=UTF-8')).status, 200)
    },
    'a denied caller with incomplete entities gets 403, never a 422 naming the join key': async () => {
      assertDenied(await post('zip_reader', { ...READ_CREDIT, entities: { zipcode: [94107] } }), 'FeatureView:credit_history', 'dob_ssn')
      assertDenied(await post('odfv_reader', { ...READ_ON_DEMAND, entities: { zipcode: [94107] } }), 'FeatureView:credit_history', 'dob_ssn')
    },
    'a denied caller asking for a feature the view lacks gets 403, never a 404 listing its features': async () => {
      assertDenied(await post('zip_reader', { ...READ_CREDIT, features: ['credit_history:no_such_feature'] }), 'FeatureView:credit_history', 'no_such_feature', 'credit_card_due')
    },
    'a denied caller gets 403 on a feature service however its entities are wrong': async () => {
      const reply = await post('odfv_reader', { ...SERVICE, entities: { zipcode: [1, 2], other: [3] } })
      assert.equal(reply.status, 403, reply.text)
      assert.equal(reply.body.message, 'Permission denied: [READ_ONLINE] on FeatureService:credit_service')
    },
    'an allowed caller learns what is wrong: a missing join key is 422, an unknown feature 404': async () => {
      const missing = await post('reader', { ...READ_CREDIT, entities: { zipcode: [94107] } })
      assert.equal(missing.status, 422, missing.text)
      assert.match(missing.body.message, /entities has no column "dob_ssn", the join key of feature view "credit_history"/)
      const unknown = await post('reader', { ...READ_CREDIT, features: ['credit_history:no_such_feature'] })
      assert.equal(unknown.status, 404, unknown.text)
      assert.match(unknown.body.message, /feature view "credit_history" has no feature "no_such_feature"/)
    },
    'a disabled view serves nothing (422), and says so only to a caller who may read it': async () => {
      const body = { features: ['retired_scores:old_score'], entities: { dob_ssn: ['19530219_5179'] } }
      const allowed = await post('reader', body)
      assert.equal(allowed.status, 422, allowed.text)
      assert.match(allowed.body.message, /"retired_scores" is disabled/)
      assertDenied(await post('zip_reader', body), 'FeatureView:retired_scores', 'disabled')
    },
    'entity columns named like integers are answered in the order sent, as Feast answers them, not first': async () => {
      const reply = await post('reader', '{"features": ["credit_history:credit_card_due"], "entities": {"dob_ssn": ["19530219_5179"], "7": [42]}}')
      assert.equal(reply.status, 200, reply.text)
      assert.deepEqual(reply.body.metadata.feature_names, ['dob_ssn', '7', 'credit_card_due'])
      assert.deepEqual(reply.body.results.map((column: { values: unknown[] }) => column.values), [['19530219_5179'], [42], [8419]])
    },
    'two integer keys that differ only beyond 2^53 are two entities: each gets its own row, never the other\'s, and is answered as sent': async () => {
      const reply = await post('reader', '{"features": ["zipcode_features:population"], "entities": {"zipcode": [9007199254740993, 9007199254740992]}}')
      assert.equal(reply.status, 200, reply.text)
      assert.deepEqual(reply.body.results.map((column: { statuses: string[] }) => column.statuses), [['PRESENT', 'PRESENT'], ['NOT_FOUND', 'PRESENT']])
      assert.deepEqual(reply.body.results[1].values, [null, 5])
      assert.match(reply.text, /^\{"metadata":\{"feature_names":\["zipcode","population"\]\},"results":\[\{"values":\[9007199254740993,9007199254740992\],/)
    },
    'an integer key within int64 is answered exactly as sent, a JSON integer however large': async () => {
      const keys = '9223372036854775807,-9223372036854775808,1234567890123456789,1234567890123456788'
      const reply = await post('reader', `{"features": ["zipcode_features:population"], "entities": {"zipcode": [${keys}]}}`)
      assert.equal(reply.status, 200, reply.text)
      assert.ok(reply.text.includes(`{"values":[${keys}],`), reply.text)
    },
    'an integer key beyond int64 is a 422 naming the column and the row, for anyone, as Feast cannot key it': async () => {
      for (const user of ['reader', 'nobody'] as const) {
        for (const key of ['9223372036854775808', '-9223372036854775809', '123456789012345678901234567890']) {
          const reply = await post(user, `{"features": ["zipcode_features:population"], "entities": {"zipcode": [1, ${key}]}}`)
          assert.equal(reply.status, 422, reply.text)
          assert.equal(reply.body.message, 'entities.zipcode[1] must be a string, finite number, boolean or null (an entity key), got an integer beyond int64 (-9223372036854775808 to 9223372036854775807)')
        }
      }
    },
    'entity columns named like integers keep the order sent when their values are integers beyond 2^53': async () => {
      const reply = await post('reader', '{"features": ["credit_history:credit_card_due"], "entities": {"dob_ssn": ["19530219_5179"], "7": [1234567890123456789]}}')
      assert.equal(reply.status, 200, reply.text)
      assert.deepEqual(reply.body.metadata.feature_names, ['dob_ssn', '7', 'credit_card_due'])
      assert.ok(reply.text.includes('"results":[{"values":["19530219_5179"],"statuses":["PRESENT"],"event_timestamps":["1970-01-01T00:00:00Z"]},{"values":[1234567890123456789],'), reply.text)
    },
    'a label view is read with READ_ONLINE on LabelView': async () => {
      const reply = await post('reader', { features: ['loan_labels:defaulted'], entities: { dob_ssn: ['19530219_5179'] } })
      assert.equal(reply.status, 200, reply.text)
      assert.deepEqual(reply.body.results[1].statuses, ['NOT_FOUND'])
      assertDenied(await post('odfv_reader', { features: ['loan_labels:defaulted'], entities: { dob_ssn: ['19530219_5179'] } }), 'LabelView:loan_labels')
    },
    'entity values are scalars: a list nested 10,000 levels deep is a 422 from the body check, for anyone': async () => {
      for (const user of ['reader', 'nobody'] as const) {
        const reply = await post(user, `{"features":["credit_history:credit_card_due"],"entities":{"dob_ssn":[${nestedList(10_000)}]}}`)
        assert.equal(reply.status, 422, reply.text)
        assert.match(reply.body.message, /entities\.dob_ssn\[0\] must be a string, finite number, boolean or null/)
      }
    },
    'a number JSON reads as infinite (1e400, -1e400) is a 422 naming the column and the row, for anyone, never a read of null\'s key': async () => {
      for (const user of ['reader', 'nobody'] as const) {
        for (const [number, read] of [['1e400', 'Infinity'], ['-1e400', '-Infinity']] as const) {
          const reply = await post(user, `{"features":["credit_history:credit_card_due"],"entities":{"dob_ssn":["19530219_5179",${number}]}}`)
          assert.equal(reply.status, 422, reply.text)
          assert.equal(reply.body.message, `entities.dob_ssn[1] must be a string, finite number, boolean or null (an entity key), got a number beyond ±1.8e308 (${read})`)
        }
      }
    },
    'deep nesting anywhere in the body is a 4xx, never a 500': async () => {
      const deep = nestedList(10_000)
      for (const text of [
        deep,
        `{"features":${deep},"entities":{"dob_ssn":["x"]}}`,
        `{"features":[${deep}],"entities":{"dob_ssn":["x"]}}`,
        `{"feature_service":${deep},"entities":{"dob_ssn":["x"]}}`,
        `{"features":["credit_history:credit_card_due"],"entities":${deep}}`,
        `{"features":["credit_history:credit_card_due"],"entities":{"dob_ssn":["x"]},"full_feature_names":${deep}}`
      ]) {
        const reply = await post('reader', text)
        assert.ok(reply.status >= 400 && reply.status < 500, `${reply.status} for ${text.slice(0, 60)}: ${reply.text}`)
        assert.equal(typeof reply.body?.message, 'string', reply.text)
      }
      // An unknown key is ignored, as Feast's server ignores it, however deep it goes.
      const ignored = await post('reader', `{"features":["credit_history:credit_card_due"],"entities":{"dob_ssn":["x"]},"extra":${deep}}`)
      assert.equal(ignored.status, 200, ignored.text)
    },
    'no body of any shape makes the server fail (property)': async () => {
      const value = fc.letrec((tie) => ({
        json: fc.oneof({ depthSize: 'small', withCrossShrink: true }, fc.constant(null), fc.boolean(), fc.integer(), fc.double(), fc.string(),
          fc.constantFrom('credit_history:credit_card_due', 'transaction_gt_last_credit_card_due:transaction_gt_last_credit_card_due', 'credit_service', 'dob_ssn', '__proto__', 'constructor'),
          fc.array(tie('json'), { maxLength: 4 }), fc.dictionary(fc.constantFrom('dob_ssn', 'zipcode', '__proto__', 'constructor', 'x'), tie('json'), { maxKeys: 3 }))
      })).json
      const body = fc.oneof(
        value,
        fc.record({ features: value, feature_service: value, entities: value, full_feature_names: value }, { requiredKeys: [] }),
        fc.record({ features: fc.array(fc.constantFrom(...READ_CREDIT.features, ...READ_ON_DEMAND.features, 'credit_history:x', ':', 'x'), { maxLength: 3 }), entities: fc.dictionary(fc.constantFrom('dob_ssn', 'zipcode'), fc.array(value, { maxLength: 3 })) })
      )
      await fc.assert(fc.asyncProperty(fc.constantFrom(...USERS), body, fc.integer({ min: 0, max: 3000 }), async (user, candidate, depth) => {
        // Some bodies get a deep list spliced in where a value was.
        const text = depth > 1000 ? JSON.stringify(candidate).replace(/null|true|false/, nestedList(depth)) : JSON.stringify(candidate)
        const reply = await post(user, text)
        assert.ok(reply.status < 500, `${reply.status} for ${text.slice(0, 200)}: ${reply.text}`)
        assert.equal(typeof reply.body, 'object', reply.text)
      }), { numRuns: 150 })
    }
  }
}
