/** Reads a V8 `.cpuprofile` and ranks functions by self time. */
import { readFileSync } from 'node:fs'
import { relative } from 'node:path'

interface ProfileNode {
  id: number
  callFrame: { functionName: string, url: string, lineNumber: number }
  hitCount?: number
}
interface CpuProfile { nodes: ProfileNode[], startTime: number, samples: number[], timeDeltas: number[] }

export interface SelfTime {
  readonly fn: string
  readonly where: string
  readonly ms: number
  readonly share: number
}

/**
 * `window` (µs, the server's monotonic clock) keeps only the samples taken under load:
 * start-up (module loading, tsx compiling) would otherwise fill the top of the list.
 */
export function topSelfTime (file: string, limit: number, window?: { from: number, to: number }): { totalMs: number, top: SelfTime[] } {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile
  const byNode = new Map<number, ProfileNode>(profile.nodes.map((node) => [node.id, node]))
  const totals = new Map<string, { fn: string, where: string, micros: number }>()
  let totalMicros = 0
  let at = profile.startTime
  profile.samples.forEach((id, index) => {
    const node = byNode.get(id)
    const delta = profile.timeDeltas[index] ?? 0
    at += delta
    if (window !== undefined && (at < window.from || at > window.to)) return
    if (node === undefined) return
    const { functionName, url, lineNumber } = node.callFrame
    // Idle time is the server waiting for the load generator: not part of a request's cost.
    if (functionName === '(idle)') return
    totalMicros += delta
    // Lines of tsx-compiled TypeScript do not match the source: name the file only.
    const where = url === '' ? '' : url.endsWith('.ts') ? shorten(url) : `${shorten(url)}:${lineNumber + 1}`
    const key = `${functionName}@${where}`
    const entry = totals.get(key) ?? { fn: functionName === '' ? '(anonymous)' : functionName, where, micros: 0 }
    entry.micros += delta
    totals.set(key, entry)
  })
  const top = [...totals.values()]
    .sort((a, b) => b.micros - a.micros)
    .slice(0, limit)
    .map((entry) => ({ fn: entry.fn, where: entry.where, ms: entry.micros / 1000, share: entry.micros / Math.max(1, totalMicros) }))
  return { totalMs: totalMicros / 1000, top }
}

function shorten (url: string): string {
  const path = url.startsWith('file://') ? new URL(url).pathname : url
  const modules = path.lastIndexOf('/node_modules/')
  if (modules !== -1) return path.slice(modules + '/node_modules/'.length)
  return path.startsWith('/') ? relative(process.cwd(), path) : path
}
