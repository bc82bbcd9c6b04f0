import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { parseDiscoveryDocument, unencryptedDiscoveryWarning } from '../../../src/base/http/discovery-document.ts'

describe('the startup warning about a plain-http discovery URL', () => {
  test('names the URL, without its credentials, when the provider is reached over a network', () => {
    const warning = unencryptedDiscoveryWarning('http://admin:hunter2@keycloak.feast.svc:8080/realms/feast/.well-known/openid-configuration')
    assert.match(warning ?? '', /^auth_discovery_url http:\/\/keycloak\.feast\.svc:8080\/realms\/feast\/\.well-known\/openid-configuration is plain http/)
    assert.doesNotMatch(warning ?? '', /hunter2/)
    assert.ok(unencryptedDiscoveryWarning('http://10.0.0.7/.well-known/openid-configuration') !== undefined)
  })

  test('is not given for https', () => {
    assert.equal(unencryptedDiscoveryWarning('https://keycloak.example/.well-known/openid-configuration'), undefined)
  })

  test('is not given for loopback hosts, whose traffic never leaves the machine', () => {
    for (const host of ['127.0.0.1:8080', '127.4.5.6', 'localhost:8080', 'LOCALHOST', 'idp.localhost', '[::1]:8080']) {
      assert.equal(unencryptedDiscoveryWarning(`http://${host}/.well-known/openid-configuration`), undefined, host)
    }
  })

  test('is still given for names that only look like loopback', () => {
    for (const host of ['127.0.0.1.attacker.example', 'localhost.attacker.example', '128.0.0.1']) {
      assert.ok(unencryptedDiscoveryWarning(`http://${host}/.well-known/openid-configuration`) !== undefined, host)
    }
  })
})

describe('the warning about a plain-http URL that a discovery document on this machine names', () => {
  const LOCAL = 'http://127.0.0.1:8080/realms/feast/.well-known/openid-configuration'
  const parse = (url: string, doc: Record<string, unknown>, needs: 'jwks_uri' | 'token_endpoint' = 'jwks_uri'): ReturnType<typeof parseDiscoveryDocument> =>
    parseDiscoveryDocument(Buffer.from(JSON.stringify(doc)), url, needs)

  test('names the URL on another host, without its credentials, and what would travel in clear text', () => {
    const { warning } = parse(LOCAL, { jwks_uri: 'http://admin:hunter2@keycloak.example:8080/certs' })
    assert.match(warning ?? '', /is on this machine but names the plain-http jwks_uri http:\/\/keycloak\.example:8080\/certs on another host: the signing keys would be fetched in clear text/)
    assert.doesNotMatch(warning ?? '', /hunter2/)
  })

  test('is given for the token endpoint the client needs, saying the secret would travel in clear text', () => {
    const { warning } = parse('http://localhost:8080/.well-known/openid-configuration', { token_endpoint: 'http://10.0.0.7/token' }, 'token_endpoint')
    assert.match(warning ?? '', /plain-http token_endpoint http:\/\/10\.0\.0\.7\/token on another host: the client secret/)
  })

  test('is not given when the URL is on this machine too, or is https', () => {
    assert.equal(parse(LOCAL, { jwks_uri: 'http://localhost:8080/certs' }).warning, undefined)
    assert.equal(parse(LOCAL, { jwks_uri: 'https://keycloak.example/certs' }).warning, undefined)
  })

  test('is not given for a discovery URL on another host, which the startup warning already names', () => {
    assert.equal(parse('http://keycloak.feast.svc:8080/.well-known/openid-configuration', { jwks_uri: 'http://keycloak.feast.svc:8080/certs' }).warning, undefined)
  })

  test('is given only for the URL the caller uses: the server is not warned about the token endpoint', () => {
    assert.equal(parse(LOCAL, { jwks_uri: 'http://127.0.0.1:8080/certs', token_endpoint: 'http://keycloak.example/token' }).warning, undefined)
  })
})
