/** The users and requests of the demo's table (`npm start`). */

export interface DemoUser {
  readonly name: string
  /** Column heading. */
  readonly label: string
  /** Shell variable the token is printed as. */
  readonly variable: string
  /** Roles in the token; `undefined` = no token at all. */
  readonly roles: readonly string[] | undefined
}

export const USERS: readonly DemoUser[] = [
  { name: 'anonymous', label: 'no token', variable: '', roles: undefined },
  { name: 'reader', label: 'reader', variable: 'READER_TOKEN', roles: ['reader'] },
  { name: 'writer', label: 'writer', variable: 'WRITER_TOKEN', roles: ['writer'] },
  { name: 'guest', label: 'no roles', variable: 'GUEST_TOKEN', roles: [] }
]

export interface Probe {
  readonly method: 'GET' | 'POST'
  readonly path: string
  readonly body?: unknown
  /** A short note shown next to a 2xx status. */
  readonly summary?: (body: unknown) => string
}

export const PROBES: readonly Probe[] = [
  { method: 'GET', path: '/health' },
  {
    method: 'GET',
    path: '/api/v1/feature_views',
    summary: (body) => `(${(body as { featureViews?: unknown[] } | undefined)?.featureViews?.length ?? 0} views)`
  },
  {
    method: 'POST',
    path: '/get-online-features',
    body: { feature_service: 'driver_activity', entities: { driver_id: [1001, 1002] } }
  },
  {
    method: 'POST',
    path: '/push',
    body: { push_source_name: 'driver_stats_push', to: 'online', df: { driver_id: [1003], conv_rate: [0.61], acc_rate: [0.88], avg_daily_trips: [7], trips_today: [2] } }
  },
  {
    method: 'POST',
    path: '/write-to-online-store',
    body: { feature_view_name: 'driver_hourly_stats', df: { driver_id: [1004], conv_rate: [0.44], acc_rate: [0.8], avg_daily_trips: [5] } }
  },
  {
    method: 'POST',
    path: '/materialize-incremental',
    body: { end_ts: '2026-11-22T00:00:00Z' }
  }
]
