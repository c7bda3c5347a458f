import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  decodeBase64Car, generateSigner, mintDelegation, mintInvocation, mintRevocation, type OracleSigner
} from '@impact/ucan'
import { PROTOCOL, startApp, type TestApp } from '../helper.ts'

let t: TestApp
let registry: string
const nowS = () => Math.floor(Date.now() / 1000)

beforeAll(async () => {
  t = await startApp()
  registry = (await t.app.inject({ method: 'GET', url: '/' })).json().did
})
afterAll(async () => { await t?.close() })

const ucan = (token: string) => ({ authorization: `Bearer ${token}`, 'x-auth-type': 'ucan' })
const DOMAIN = { type: 'Device', class: PROTOCOL, metadata: { name: 'Stove 7' } }

/** A fresh user who delegated domain/* to a fresh service. */
async function delegated (options: { expiration?: number } = {}) {
  const [user, service] = [await generateSigner(), await generateSigner()]
  const proof = await mintDelegation({
    issuer: user, audience: service, capabilities: [{ can: 'domain/*', with: user.did() }], ...options
  })
  const invoke = async (can: string, issuer: OracleSigner = service) => await mintInvocation({
    issuer, audience: registry, capability: { can, with: user.did() }, proofs: [proof], lifetimeSeconds: 60
  })
  return { user, service, proof, invoke }
}

const create = async (token: string) =>
  await t.app.inject({ method: 'POST', url: '/v1/domains', headers: ucan(token), payload: DOMAIN })
const list = async (token: string) =>
  await t.app.inject({ method: 'GET', url: '/v1/domains?limit=1', headers: ucan(token) })
const revoke = async (token: string) =>
  await t.app.inject({ method: 'POST', url: '/v1/revocations', headers: ucan(token) })

describe('invocations made through a delegation', () => {
  it('are single-use: a replay is 401 DOMAIN_UCAN_REPLAYED and changes nothing', async () => {
    const { user, invoke } = await delegated()
    const token = await invoke('domain/create')
    expect((await create(token)).statusCode).toBe(201)
    const replay = await create(token)
    expect(replay.statusCode).toBe(401)
    expect(replay.json()).toMatchObject({ code: 'DOMAIN_UCAN_REPLAYED' })
    const mine = await t.app.inject({
      method: 'GET', url: `/v1/domains?controller=${user.did()}`, headers: ucan(await invoke('domain/read'))
    })
    expect(mine.json().items).toHaveLength(1)
  })

  it('are single-use for reads as well, while an account\'s own invocation may be reused', async () => {
    const { user, invoke } = await delegated()
    const read = await invoke('domain/read')
    expect((await list(read)).statusCode).toBe(200)
    expect((await list(read)).json().code).toBe('DOMAIN_UCAN_REPLAYED')
    const capability = { can: 'domain/read', with: user.did() }
    const own = await mintInvocation({ issuer: user, audience: registry, capability })
    expect((await list(own)).statusCode).toBe(200)
    expect((await list(own)).statusCode).toBe(200)
  })

  it('are refused with 401 once the delegation has expired', async () => {
    const { invoke } = await delegated({ expiration: nowS() - 1 })
    const res = await create(await invoke('domain/create'))
    expect(res.statusCode).toBe(401)
    expect(res.json().code).toBe('DOMAIN_UCAN_INVALID_INVOCATION')
  })
})

describe('POST /v1/revocations', () => {
  it('lets the user revoke the delegation: invocations carrying it are then 401 DOMAIN_UCAN_REVOKED', async () => {
    const { user, proof, invoke } = await delegated()
    expect((await create(await invoke('domain/create'))).statusCode).toBe(201)
    const res = await revoke(await mintRevocation({ issuer: user, audience: registry, delegation: proof }))
    expect(res.statusCode).toBe(200)
    const decoded = await decodeBase64Car(proof)
    expect(res.json()).toEqual({
      ok: true, cid: decoded.cid.toString(), expiresAt: new Date(decoded.expiration * 1000).toISOString()
    })
    const refused = await create(await invoke('domain/create'))
    expect(refused.statusCode).toBe(401)
    expect(refused.json()).toMatchObject({ code: 'DOMAIN_UCAN_REVOKED' })
    expect((await revoke(await mintRevocation({ issuer: user, audience: registry, delegation: proof }))).statusCode)
      .toBe(200)
  })

  it('lets the service renounce the delegation it holds', async () => {
    const { service, proof, invoke } = await delegated()
    expect((await revoke(await mintRevocation({ issuer: service, audience: registry, delegation: proof }))).statusCode)
      .toBe(200)
    expect((await list(await invoke('domain/read'))).json().code).toBe('DOMAIN_UCAN_REVOKED')
  })

  it('refuses anyone else with 403, and a missing or bad token with 401', async () => {
    const { proof, invoke } = await delegated()
    const stranger = await generateSigner()
    const foreign = await revoke(await mintRevocation({ issuer: stranger, audience: registry, delegation: proof }))
    expect(foreign.statusCode).toBe(403)
    expect(foreign.json().code).toBe('DOMAIN_UCAN_REVOCATION_NOT_ALLOWED')
    const elsewhere = await revoke(await mintRevocation({ issuer: stranger, audience: stranger, delegation: proof }))
    expect(elsewhere.json()).toMatchObject({ statusCode: 401, code: 'DOMAIN_UCAN_INVALID_INVOCATION' })
    const missing = await t.app.inject({ method: 'POST', url: '/v1/revocations' })
    expect(missing.json()).toMatchObject({ statusCode: 401, code: 'DOMAIN_AUTH_MISSING' })
    expect((await list(await invoke('domain/read'))).statusCode).toBe(200)
  })
})
