/**
 * The reference feature server (`feast-authz serve`, `npm start`), a Fastify app; see
 * docs/reference-server.md. It also re-exports everything of `feast-authz/online` (the catalog,
 * the online store and the get-online-features steps it is built on), which an app without
 * Fastify imports from there instead.
 */
export { buildReferenceServer, type ReferenceServerOptions } from './app.ts'
export * from './online.ts'
