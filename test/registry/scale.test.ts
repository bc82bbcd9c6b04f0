import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { decodeRegistry } from '../../src/registry/decode.ts'
import { openFeastRegistry, type FeastRegistry } from '../../src/registry/index.ts'
import { buildSnapshot } from '../../src/registry/snapshot.ts'
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

/** CPU time (not wall time, which a loaded machine stretches) of the fastest of two loads. */
function fastestLoad (data: Uint8Array): number {
  let best = Infinity
  for (let run = 0; run < 2; run++) {
    const start = process.cpuUsage()
    buildSnapshot(decodeRegistry(data), '/test/registry.db')
    const used = process.cpuUsage(start)
    best = Math.min(best, used.user + used.system)
  }
  return best
}

describe('loading a large registry', () => {
  it('takes CPU time linear in the number of objects, not objects × projects (16,000 projects)', () => {
    const small = manyProjects(2000)
    const large = manyProjects(16000)
    const snapshot = buildSnapshot(decodeRegistry(large), '/test/registry.db')
    assert.equal(snapshot.projects.size, 16000)
    assert.equal(snapshot.projects.get('p15999')?.find('FeatureView', 'view')?.project, 'p15999')
    assert.equal(snapshot.projects.get('p15999')?.permissions[0]?.name, 'readers')
    fastestLoad(small) // warm-up
    // Eight times the projects: about eight times the work when linear, sixty-four when quadratic.
    const ratio = fastestLoad(large) / fastestLoad(small)
    assert.ok(ratio < 32, `8x the projects took ${ratio.toFixed(1)}x the CPU time`)
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
