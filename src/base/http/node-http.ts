import type * as HttpModule from 'node:http'
import type * as HttpsModule from 'node:https'

/**
 * `node:http` and `node:https`, taken as the CommonJS modules they are. An ES import of
 * `node:http` builds a namespace of every export, which on Node 22 and later reads the lazy
 * `WebSocket`, `CloseEvent` and `MessageEvent` getters and so loads Node's bundled undici,
 * HTTP/2 and web streams: on Node 24 that cost the root import 60–90 ms and about 10 MiB
 * (28 Nov 2026), for servers that never use them. Fastify, being CommonJS, does not pay it.
 */
export const http: typeof HttpModule = process.getBuiltinModule('node:http')
export const https: typeof HttpsModule = process.getBuiltinModule('node:https')
