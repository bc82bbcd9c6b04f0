import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { unencryptedDiscoveryWarning } from '../../../src/base/http/discovery-document.ts'

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
