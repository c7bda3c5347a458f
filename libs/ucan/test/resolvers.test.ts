import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { base58btc } from '@ucanto/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createBlocksyncResolver,
  createUcanVerifier,
  didKeysOf,
  ed25519DidKey,
  generateSigner,
  mintInvocation,
  VerdictCache
} from '../src/index.ts'

const signer = await generateSigner()
const rawKey = Buffer.from(base58btc.decode(signer.did().slice('did:key:'.length))).subarray(2)

describe('did:key conversion', () => {
  it('turns raw, hex and base58 Ed25519 keys into the signer\'s did:key', () => {
    expect(ed25519DidKey(rawKey)).toBe(signer.did())
    const multibase = signer.did().slice('did:key:'.length)
    expect(didKeysOf([
      { id: '#key-1', type: 'Ed25519VerificationKey2018', publicKeyHex: rawKey.toString('hex') },
      { id: '#key-2', type: 'Ed25519VerificationKey2020', publicKeyMultibase: multibase },
      { id: '#other', type: 'EcdsaSecp256k1VerificationKey2019', publicKeyHex: 'ab'.repeat(33) },
      { id: '#bad', type: 'Ed25519VerificationKey2018', publicKeyHex: 'zz' }
    ])).toEqual([signer.did()])
  })
})

describe('Blocksync resolver', () => {
  let server: Server
  let url: string
  let calls = 0
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = ''
      req.on('data', (c) => { body += String(c) })
      req.on('end', () => {
        calls++
        const { variables } = JSON.parse(body) as { variables: { id: string } }
        const nodes =
          variables.id === 'did:ixo:ixo1known'
            ? [
                {
                  id: variables.id,
                  verificationMethod: [
                    {
                      id: `${variables.id}#signing`,
                      type: 'Ed25519VerificationKey2018',
                      publicKeyHex: rawKey.toString('hex')
                    }
                  ]
                }
              ]
            : []
        res.setHeader('content-type', 'application/json')
        res.end(JSON.stringify({ data: { iids: { nodes } } }))
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`
  })
  afterAll(async () => { await new Promise((resolve) => server.close(resolve)) })

  it('resolves a did:ixo to its signing keys and caches the answer', async () => {
    const resolve = createBlocksyncResolver({ url })
    expect(await resolve('did:ixo:ixo1known')).toEqual([signer.did()])
    const before = calls
    expect(await resolve('did:ixo:ixo1known')).toEqual([signer.did()])
    expect(calls).toBe(before)
    expect(await resolve('did:ixo:ixo1unknown')).toEqual([])
  })

  it('lets a verifier accept an invocation signed by a did:ixo user', async () => {
    const oracle = await generateSigner()
    const verifier = createUcanVerifier({ oracleDid: oracle.did(), resolveDidKey: createBlocksyncResolver({ url }) })
    const token = await mintInvocation({ issuer: signer.withDID('did:ixo:ixo1known'), audience: oracle })
    expect((await verifier.verifyInvocation(token)).ok?.did).toBe('did:ixo:ixo1known')
  })

  it('does not cache a verdict when the resolver is unreachable', async () => {
    const oracle = await generateSigner()
    let up = false
    const verifier = createUcanVerifier({
      oracleDid: oracle.did(),
      resolveDidKey: async (did) => {
        if (!up) throw new Error('down')
        return await createBlocksyncResolver({ url })(did)
      }
    })
    const token = await mintInvocation({ issuer: signer.withDID('did:ixo:ixo1known'), audience: oracle })
    expect((await verifier.verifyInvocation(token)).error?.reason).toBe('unresolvable_did')
    up = true
    expect((await verifier.verifyInvocation(token)).ok?.did).toBe('did:ixo:ixo1known')
  })
})

describe('VerdictCache', () => {
  it('stays within its size and shares one computation between concurrent callers', async () => {
    const cache = new VerdictCache<number>(3)
    let runs = 0
    const compute = async () => { runs++; return { value: runs, ttlMs: 60_000 } }
    const [a, b] = await Promise.all([cache.through('k', compute), cache.through('k', compute)])
    expect([a, b, runs]).toEqual([1, 1, 1])
    for (const key of ['x', 'y', 'z', 'w']) await cache.through(key, compute)
    expect(cache.size).toBe(3)
  })

  it('does not keep a verdict past its ttl', async () => {
    const cache = new VerdictCache<string>(10)
    await cache.through('k', async () => ({ value: 'first', ttlMs: 0 }))
    expect(await cache.through('k', async () => ({ value: 'second', ttlMs: 1000 }))).toBe('second')
  })
})
