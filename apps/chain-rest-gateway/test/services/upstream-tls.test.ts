import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generate } from 'selfsigned'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { buildGateway, gatewayConfig, startNode } from '../helper.ts'

interface Pem { key: string, cert: string }
interface Pki { ca: Pem, server: Pem, client: Pem }

/** A private CA, a node certificate for 127.0.0.1 and a client certificate, all made for this test. */
async function makePki (): Promise<Pki> {
  const options = { algorithm: 'sha256', keySize: 2048, days: 1 }
  const ca = await generate([{ name: 'commonName', value: 'gateway test CA' }], {
    ...options,
    extensions: [{ name: 'basicConstraints', cA: true }, { name: 'keyUsage', keyCertSign: true, cRLSign: true }]
  })
  const signer = { key: ca.private, cert: ca.cert }
  const server = await generate([{ name: 'commonName', value: 'localhost' }], {
    ...options,
    ca: signer,
    extensions: [
      { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] },
      { name: 'extKeyUsage', serverAuth: true }
    ]
  })
  const client = await generate([{ name: 'commonName', value: 'chain-rest-gateway' }], {
    ...options,
    ca: signer,
    extensions: [{ name: 'extKeyUsage', clientAuth: true }]
  })
  return {
    ca: signer,
    server: { key: server.private, cert: server.cert },
    client: { key: client.private, cert: client.cert }
  }
}

describe('upstream over TLS', () => {
  let pki: Pki
  let dir: string
  const file = (name: string, content: string) => {
    const path = join(dir, name)
    writeFileSync(path, content)
    return path
  }
  beforeAll(async () => {
    pki = await makePki()
    dir = mkdtempSync(join(tmpdir(), 'chain-tls-'))
  }, 60_000)
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  async function tlsNode () {
    const node = await startNode({
      tls: { ...pki.server, clientCa: pki.ca.cert },
      requiredMetadata: ['x-provider-key', 'secret-provider-key-1']
    })
    onTestFinished(async () => await node.close())
    return node
  }

  it('queries a node with a private CA, a client certificate and an API-key header', async () => {
    const node = await tlsNode()
    expect(node.url).toMatch(/^grpcs:\/\/127\.0\.0\.1:\d+$/)
    const app = await buildGateway({
      CHAIN_GRPC_URL: node.url,
      CHAIN_DESCRIPTOR_SOURCE: 'reflection',
      CHAIN_GRPC_CA_FILE: file('ca.pem', pki.ca.cert),
      CHAIN_GRPC_CLIENT_CERT_FILE: file('client.pem', pki.client.cert),
      CHAIN_GRPC_CLIENT_KEY_FILE: file('client.key', pki.client.key),
      CHAIN_GRPC_API_KEY: 'secret-provider-key-1',
      CHAIN_GRPC_API_KEY_HEADER: 'x-provider-key'
    })
    onTestFinished(async () => await app.close())
    const res = await app.inject({ method: 'GET', url: '/ixo/entity/params' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toHaveProperty('params')
  })

  it('relays the node\'s refusal when the API key is wrong', async () => {
    const node = await tlsNode()
    const app = await buildGateway({
      CHAIN_GRPC_URL: node.url,
      CHAIN_DESCRIPTOR_SOURCE: 'bundled',
      CHAIN_GRPC_CA_FILE: file('ca.pem', pki.ca.cert),
      CHAIN_GRPC_CLIENT_CERT_FILE: file('client.pem', pki.client.cert),
      CHAIN_GRPC_CLIENT_KEY_FILE: file('client.key', pki.client.key),
      CHAIN_GRPC_API_KEY: 'wrong-provider-key',
      CHAIN_GRPC_API_KEY_HEADER: 'x-provider-key'
    })
    onTestFinished(async () => await app.close())
    const res = await app.inject({ method: 'GET', url: '/ixo/entity/params' })
    expect(res.statusCode).toBe(401)
    expect(res.json()).toMatchObject({ code: 16 })
  })

  it('cannot reach the node without the CA or without a client certificate', async () => {
    const node = await tlsNode()
    const key = { CHAIN_GRPC_API_KEY: 'secret-provider-key-1', CHAIN_GRPC_API_KEY_HEADER: 'x-provider-key' }
    const withoutCa = {
      CHAIN_GRPC_CLIENT_CERT_FILE: file('c.pem', pki.client.cert),
      CHAIN_GRPC_CLIENT_KEY_FILE: file('c.key', pki.client.key)
    }
    for (const env of [withoutCa, { CHAIN_GRPC_CA_FILE: file('ca.pem', pki.ca.cert) }]) {
      const app = await buildGateway({
        CHAIN_GRPC_URL: node.url,
        CHAIN_DESCRIPTOR_SOURCE: 'bundled',
        CHAIN_GRPC_TIMEOUT_MS: '1500',
        ...key,
        ...env
      })
      onTestFinished(async () => await app.close())
      const res = await app.inject({ method: 'GET', url: '/ixo/entity/params' })
      expect(res.statusCode).toBe(503)
      expect(res.json()).toMatchObject({ code: 14 })
    }
  })

  it('refuses a client certificate without its key, and unreadable files at start', async () => {
    expect(() => gatewayConfig({ CHAIN_GRPC_CLIENT_CERT_FILE: file('c.pem', pki.client.cert) })).toThrow(/go together/)
    await expect(buildGateway({ CHAIN_GRPC_CA_FILE: join(dir, 'missing.pem') })).rejects.toThrow(
      /CHAIN_GRPC_CA_FILE: cannot read/
    )
  })
})
