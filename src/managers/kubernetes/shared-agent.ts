import { https } from '../../base/http/node-http.ts'
import type { AgentOptions } from 'node:https'
import { createHash } from 'node:crypto'
import type { Agent } from 'node:http'
import type { KubeConfig } from '@kubernetes/client-node'

/** Connections kept to the API server for short requests (TokenReviews, list pages). */
const MAX_SOCKETS = 8

/**
 * A view of `kubeConfig` whose HTTPS requests share one keep-alive agent. client-node builds
 * a new agent, hence a new TCP and TLS connection, for every request: under a burst of new
 * tokens each TokenReview paid a full handshake. The agent is rebuilt when the TLS settings
 * change (a rotated client certificate or CA); at most {@link MAX_SOCKETS} connections are
 * open at once, further requests wait for one. Proxies and plain HTTP keep client-node's own agents.
 */
export function withSharedAgent (kubeConfig: KubeConfig): KubeConfig {
  const view: KubeConfig = Object.create(kubeConfig)
  let shared: { key: string, agent: Agent } | undefined
  // client-node's (private) agent factory, which both its generated clients and Watch call.
  const internals = view as unknown as { createAgent: AgentFactory }
  const original = internals.createAgent.bind(view)
  internals.createAgent = (cluster, agentOptions) => {
    if (cluster === null || cluster.proxyUrl !== undefined || !cluster.server.startsWith('https:')) return original(cluster, agentOptions)
    const key = settingsKey(agentOptions)
    if (shared?.key !== key) {
      shared?.agent.destroy()
      shared = { key, agent: new https.Agent({ ...agentOptions, keepAlive: true, maxSockets: MAX_SOCKETS, scheduling: 'lifo' }) }
    }
    return shared.agent
  }
  return view
}

type AgentFactory = (cluster: { server: string, proxyUrl?: string | undefined } | null, agentOptions: AgentOptions) => Agent

/** A digest of the TLS settings an agent was built with (they hold keys: never kept as they are). */
function settingsKey (options: AgentOptions): string {
  const hash = createHash('sha256')
  for (const value of [options.ca, options.cert, options.key, options.pfx, options.passphrase, options.servername, options.rejectUnauthorized]) {
    hash.update(value === undefined ? '-' : Array.isArray(value) ? value.map(String).join('\0') : String(value)).update('\0')
  }
  return hash.digest('base64url')
}
