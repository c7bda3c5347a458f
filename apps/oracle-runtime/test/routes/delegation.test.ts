import { beforeAll, describe, expect, it } from 'vitest'
import { generateSigner, mintDelegation } from '@impact/ucan'
import { fileHarness, type TestUser } from '../support/harness.ts'

const nowS = () => Math.floor(Date.now() / 1000)
const caps = [{ can: '*', with: 'ixo:oracle' }, { can: 'memory/*', with: 'ixo:memory' }]

describe('/delegation', () => {
  const t = fileHarness()
  let alice: TestUser
  beforeAll(async () => { alice = await t.h.user() })

  const store = async (user: TestUser, payload: Record<string, unknown>) =>
    await t.h.app.inject({ method: 'POST', url: '/delegation', headers: user.headers, payload })
  const status = async (user: TestUser) =>
    (await t.h.app.inject({ method: 'GET', url: '/delegation', headers: user.headers })).json()

  it('reports no delegation before one is stored', async () => {
    expect(await status(await t.h.user())).toEqual({ authorized: false })
  })

  it('stores the caller\'s delegation with the expiry read from the token, ignoring stated values', async () => {
    const user = await t.h.user()
    const expiration = nowS() + 3600
    const raw = await mintDelegation({ issuer: user.signer, audience: t.h.oracleDid, capabilities: caps, expiration })
    const res = await store(user, {
      raw,
      issuer: 'did:key:zLies',
      audience: 'did:key:zMoreLies',
      expiration: 99999999999
    })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ ok: true, expiration })
    expect(await status(user)).toEqual({ authorized: true, expiration, capabilities: caps })
  })

  it('takes the earliest expiry of a chain', async () => {
    const user = await t.h.user()
    const root = await generateSigner()
    const rootExpiry = nowS() + 600
    const proof = await mintDelegation({
      issuer: root,
      audience: user.signer,
      capabilities: caps,
      expiration: rootExpiry
    })
    const raw = await mintDelegation({
      issuer: user.signer,
      audience: t.h.oracleDid,
      capabilities: caps,
      expiration: nowS() + 7200,
      proofs: [proof]
    })
    expect((await store(user, { raw })).json()).toEqual({ ok: true, expiration: rootExpiry })
  })

  it('answers 403 when the delegation\'s issuer is not the caller', async () => {
    const other = await t.h.user()
    const res = await store(alice, { raw: other.delegation })
    expect(res.statusCode).toBe(403)
    expect(res.json()).toMatchObject({ statusCode: 403, message: 'Delegation issuer is not the caller' })
  })

  it.each([
    [
      'addressed to another oracle',
      async (u: TestUser) =>
        await mintDelegation({ issuer: u.signer, audience: (await generateSigner()).did(), capabilities: caps }),
      'not addressed to this oracle'
    ],
    [
      'expired',
      async (u: TestUser) =>
        await mintDelegation({
          issuer: u.signer,
          audience: t.h.oracleDid,
          capabilities: caps,
          expiration: nowS() - 10
        }),
      'expired'
    ],
    [
      'that never expires',
      async (u: TestUser) =>
        await mintDelegation({ issuer: u.signer, audience: t.h.oracleDid, capabilities: caps, expiration: Infinity }),
      'it must expire'
    ],
    ['that is garbage', async () => 'Z2FyYmFnZQ==', 'not a base64 UCAN delegation']
  ])('answers 400 to a delegation %s', async (_name, mint, reason) => {
    const res = await store(alice, { raw: await mint(alice) })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toMatchObject({ statusCode: 400, message: `Invalid delegation: ${reason}` })
  })

  it('rejects unknown body keys', async () => {
    expect((await store(alice, { raw: alice.delegation, extra: 1 })).statusCode).toBe(400)
  })

  it('revokes with DELETE and keeps users apart', async () => {
    const bob = await t.h.user()
    await store(alice, { raw: alice.delegation })
    await store(bob, { raw: bob.delegation })
    const res = await t.h.app.inject({
      method: 'DELETE',
      url: '/delegation',
      headers: { ...alice.headers, 'content-type': 'application/json' }
    })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ ok: true })
    expect(await status(alice)).toEqual({ authorized: false })
    expect((await status(bob)).authorized).toBe(true)
  })
})
