import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { decodeRegistry } from '../../src/registry/decode.ts'
import { openFeastRegistry, type FeastRegistry } from '../../src/registry/index.ts'
import { buildSnapshot, type RegistrySnapshot } from '../../src/registry/snapshot.ts'
import { wire } from '../helpers/feast-registry-writer.ts'
import { replaceFile, tempDir } from '../helpers/registry-builder.ts'

const { bytes, string } = wire
const { dir, cleanup } = tempDir()
const opened: FeastRegistry[] = []
after(() => {
  for (const registry of opened) registry.close()
  cleanup()
})

/** `projects` projects, each with one feature view and one permission: 3 objects a project. */
function manyProjects (projects: number): Uint8Array {
  const parts: number[][] = []
  for (let i = 0; i < projects; i++) parts.push(bytes(6, bytes(1, [...string(1, 'view'), ...string(2, `p${i}`), ...bytes(4, string(1, 'f'))])))
  for (let i = 0; i < projects; i++) parts.push(bytes(16, bytes(1, [...string(1, 'readers'), ...string(2, `p${i}`), ...bytes(6, [1]), ...bytes(7, bytes(3, string(1, 'reader')))])))
  for (let i = 0; i < projects; i++) parts.push(bytes(17, bytes(1, string(1, `p${i}`))))
  return Uint8Array.from(parts.flat())
}

/** `views` feature views in project `demo`, 50 bytes each (one template, its number patched in). */
function manyViews (views: number, permission: string): Uint8Array {
  const template = Uint8Array.from(bytes(6, bytes(1, [...string(1, 'view_000000'), ...string(2, 'demo'), ...bytes(4, string(1, 'feature')), ...bytes(5, [...string(1, 'team'), ...string(2, 'a')])])))
  const digits = Buffer.from(template).indexOf('000000')
  const tail = Uint8Array.from([
    ...bytes(16, bytes(1, [...string(1, permission), ...string(2, 'demo'), ...bytes(6, [1]), ...bytes(7, bytes(3, string(1, 'reader')))])),
    ...bytes(17, bytes(1, string(1, 'demo')))
  ])
  const out = Buffer.alloc(template.length * views + tail.length)
  for (let i = 0; i < views; i++) {
    const at = i * template.length
    out.set(template, at)
    out.write(String(i).padStart(6, '0'), at + digits, 'latin1')
  }
  out.set(tail, template.length * views)
  return out
}

/** Decodes and indexes `data`, and the CPU time (user + system, µs) that took. */
function timedLoad (data: Uint8Array): { snapshot: RegistrySnapshot, cpuTime: number } {
  const start = process.cpuUsage()
  const snapshot = buildSnapshot(decodeRegistry(data), '/test/registry.db')
  const used = process.cpuUsage(start)
  return { snapshot, cpuTime: used.user + used.system }
}

describe('loading a large registry', () => {
  // No deterministic count exists here: what would go quadratic is a scan of the snapshot's own
  // objects per project, which nothing outside the module can observe. So the test compares CPU
  // time (not wall time, which a loaded machine stretches), with margins that hold when one run
  // is twice as slow as another on this shared machine.
  it('takes CPU time linear in the number of objects, not objects × projects (1,000 vs 12,000 projects)', () => {
    const small = manyProjects(1000)
    const large = manyProjects(12000)
    // Warmed up (until the JIT has compiled the loader, a load costs several times more), then the
    // least of five runs: a garbage collection or another job's burst lands in one run. A small
    // load measured too slow would let a quadratic large one pass, so this side gets more runs.
    for (let run = 0; run < 2; run++) timedLoad(small)
    const smallest = Math.min(...[1, 2, 3, 4, 5].map(() => timedLoad(small).cpuTime))
    // Twelve times the projects: 8 to 17 times the CPU time when linear (measured with three loads
    // sharing the two cores), 144 times the work when quadratic (a per-project scan of the objects
    // measured 146 to 600). The limit leaves three times the worst of either side.
    const limit = 48 * smallest
    const first = timedLoad(large)
    assert.equal(first.snapshot.projects.size, 12000)
    assert.equal(first.snapshot.projects.get('p11999')?.find('FeatureView', 'view')?.project, 'p11999')
    assert.equal(first.snapshot.projects.get('p11999')?.permissions[0]?.name, 'readers')
    // A second run only when the first was slow (broken, each one takes tens of seconds).
    const fastest = first.cpuTime < limit ? first.cpuTime : Math.min(first.cpuTime, timedLoad(large).cpuTime)
    assert.ok(fastest < limit, `12x the projects took ${(fastest / smallest).toFixed(1)}x the CPU time (limit 48x)`)
  })

  it('keeps the event loop turning while a reload decodes it, so requests are answered meanwhile', async () => {
    const path = join(dir, 'large.db')
    writeFileSync(path, manyViews(10, 'first'))
    const registry = openFeastRegistry({ path, project: 'demo', pollIntervalMs: 0, cacheTtlSeconds: 0 })
    opened.push(registry)
    const server = createServer((_request, response) => { response.end(registry.permissionsFor()[0]?.name ?? '') })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    after(() => { server.close() })
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`

    replaceFile(path, manyViews(100_000, 'second'))
    let done = false
    const reload = registry.refresh().finally(() => { done = true })
    let turns = 0
    // eslint-disable-next-line no-unmodified-loop-condition -- `done` is set by the reload's promise
    const ticking = (async () => { while (!done) { await nextTurn(); turns++ } })()
    // Requests one after the other, all through the reload: each needs several event-loop turns.
    const answered: Array<{ body: string, duringReload: boolean }> = []
    for (let i = 0; i < 5; i++) {
      const body = await (await fetch(url)).text()
      answered.push({ body, duringReload: !done })
    }
    assert.equal(await reload, 'updated')
    await ticking
    assert.deepEqual(answered, Array.from({ length: 5 }, () => ({ body: 'first', duringReload: true })), 'every request was answered, with the version in force, before the reload ended')
    // A decode that blocked the loop would leave a handful of turns (file reads); a sliced one gives dozens.
    assert.ok(turns >= 30, `only ${turns} event-loop turns during the reload`)
    assert.equal(registry.featureView('view_099999')?.name, 'view_099999')
    assert.equal(registry.permissionsFor()[0]?.name, 'second')
  })
})
