import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { formatSigner, generateSigner, mintDelegation, mintInvocation, type OracleSigner } from '@impact/ucan'
import { tamperSignature } from '@impact/ucan/testing'
import { createProposal, vote, withCouncil } from '../governance.ts'
import { ADMIN_KEY, PROTOCOL, randomAccount, startApp, type TestApp } from '../helper.ts'

let t: TestApp
let registry: string
const nowS = () => Math.floor(Date.now() / 1000)

beforeAll(async () => {
  t = await startApp()
  registry = (await t.app.inject({ method: 'GET', url: '/' })).json().did
})
afterAll(async () => { await t?.close() })

const ucan = (token: string) => ({ authorization: `Bearer ${token}`, 'x-auth-type': 'ucan' })
const DOMAIN = { type: 'Project', class: PROTOCOL, metadata: { name: 'Stove 1' } }

/** An invocation of `can` on `account` (default: the issuer's own DID), addressed to the registry. */
async function invocation (
  issuer: OracleSigner,
  can: string,
  options: { account?: string, proofs?: string[], expiration?: number, audience?: string } = {}
) {
  return await mintInvocation({
    issuer,
    audience: options.audience ?? registry,
    capability: { can, with: options.account ?? issuer.did() },
    ...(options.proofs !== undefined ? { proofs: options.proofs } : {}),
    ...(options.expiration !== undefined ? { expiration: options.expiration } : {})
  })
}

/** user → service delegation of `can` on the user's DID. */
const delegation = async (user: OracleSigner, service: OracleSigner, can = 'domain/*', issuer = user) =>
  await mintDelegation({ issuer, audience: service, capabilities: [{ can, with: user.did() }] })

const create = async (headers: Record<string, string>, body: object = DOMAIN) =>
  await t.app.inject({ method: 'POST', url: '/v1/domains', headers, payload: body })

describe('the registry\'s identity', () => {
  it('announces a did:key on GET / and keeps it across restarts on one DATA_DIR', async () => {
    expect(registry).toMatch(/^did:key:z6Mk/)
    const dir = await mkdtemp(join(tmpdir(), 'domain-api-identity-'))
    try {
      const didOf = async () => {
        const app = await startApp({ DATA_DIR: dir, NODE_ENV: 'development' })
        try {
          return (await app.app.inject({ method: 'GET', url: '/' })).json().did as string
        } finally {
          await app.close()
        }
      }
      const first = await didOf()
      expect(await didOf()).toBe(first)
      expect((await stat(join(dir, 'domain-api-private-key'))).mode & 0o777).toBe(0o600)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }, 120_000)

  it('uses DOMAIN_API_PRIVATE_KEY when configured', async () => {
    const signer = await generateSigner()
    const app = await startApp({ DOMAIN_API_PRIVATE_KEY: formatSigner(signer) })
    try {
      expect((await app.app.inject({ method: 'GET', url: '/' })).json().did).toBe(signer.did())
    } finally {
      await app.close()
    }
  }, 60_000)
})

describe('UCAN invocations', () => {
  it('registers a domain controlled by the DID at the root of a self-issued invocation', async () => {
    const user = await generateSigner()
    const res = await create(ucan(await invocation(user, 'domain/create')))
    expect(res.statusCode).toBe(201)
    const domain = res.json()
    expect(domain.controllers).toEqual([user.did()])
    expect(domain.createdBy).toEqual({ keyId: null, account: user.did(), service: null })
    const read = await t.app.inject({
      method: 'GET', url: `/v1/domains/${domain.did}/history`, headers: ucan(await invocation(user, 'domain/read'))
    })
    expect(read.statusCode).toBe(200)
    expect(read.json().items[0].actor).toEqual({ kind: 'ucan', keyId: null, account: user.did(), service: null })
  })

  it('acts for the user when a service invokes with the user\'s delegation, recording the service', async () => {
    const [user, service] = [await generateSigner(), await generateSigner()]
    const proof = await delegation(user, service)
    const res = await create(ucan(await invocation(service, 'domain/create', { account: user.did(), proofs: [proof] })))
    expect(res.statusCode).toBe(201)
    const domain = res.json()
    expect(domain.controllers).toEqual([user.did()])
    expect(domain.createdBy).toEqual({ keyId: null, account: user.did(), service: service.did() })

    const patch = await t.app.inject({
      method: 'PATCH',
      url: `/v1/domains/${domain.did}`,
      headers: ucan(await invocation(service, 'domain/update', { account: user.did(), proofs: [proof] })),
      payload: { metadata: { name: 'Stove 1, kitchen' } }
    })
    expect(patch.statusCode).toBe(200)
    expect((await t.history(domain.did, ADMIN_KEY)).map((e) => e.actor)).toEqual([
      { kind: 'ucan', keyId: null, account: user.did(), service: service.did() },
      { kind: 'ucan', keyId: null, account: user.did(), service: service.did() }
    ])
  })

  it('refuses a forged invocation, an expired one and one addressed elsewhere with 401', async () => {
    const user = await generateSigner()
    const flip = (sig: Uint8Array) => { sig[40] = (sig[40] ?? 0) ^ 0x01 }
    const tokens = [
      await tamperSignature(await invocation(user, 'domain/create'), flip),
      await invocation(user, 'domain/create', { expiration: nowS() - 60 }),
      await invocation(user, 'domain/create', { audience: (await generateSigner()).did() }),
      Buffer.from('not a UCAN').toString('base64')
    ]
    for (const token of tokens) {
      const res = await create(ucan(token))
      expect(res.statusCode).toBe(401)
      expect(res.json()).toMatchObject({
        statusCode: 401, code: 'DOMAIN_UCAN_INVALID_INVOCATION', message: 'Invalid UCAN invocation'
      })
      expect(res.headers['www-authenticate']).toBe('Bearer error="invalid_token"')
    }
  })

  it('refuses a chain whose proof signature was forged with 401', async () => {
    const [user, service] = [await generateSigner(), await generateSigner()]
    const proof = await tamperSignature(await delegation(user, service), (sig) => { sig[10] = (sig[10] ?? 0) ^ 0x01 })
    const res = await create(ucan(await invocation(service, 'domain/create', { account: user.did(), proofs: [proof] })))
    expect(res.statusCode).toBe(401)
    expect(res.json().code).toBe('DOMAIN_UCAN_INVALID_INVOCATION')
  })

  it('refuses unrooted chains with 403: no proof, or a delegation from someone other than the account', async () => {
    const [user, service, stranger] = [await generateSigner(), await generateSigner(), await generateSigner()]
    const bare = await invocation(service, 'domain/create', { account: user.did() })
    const foreign = await invocation(service, 'domain/create', {
      account: user.did(), proofs: [await delegation(user, service, 'domain/*', stranger)]
    })
    for (const token of [bare, foreign]) {
      const res = await create(ucan(token))
      expect(res.statusCode).toBe(403)
      expect(res.json().code).toBe('DOMAIN_UCAN_NOT_GRANTED')
    }
  })

  it('refuses an ability the route does not take, or one the delegation never granted, with 403', async () => {
    const [user, service] = [await generateSigner(), await generateSigner()]
    const wrong = await create(ucan(await invocation(user, 'domain/read')))
    expect(wrong.statusCode).toBe(403)
    expect(wrong.json().code).toBe('DOMAIN_UCAN_NOT_GRANTED')
    const readOnly = await delegation(user, service, 'domain/read')
    const ungranted = await create(ucan(await invocation(service, 'domain/create', {
      account: user.did(), proofs: [readOnly]
    })))
    expect(ungranted.statusCode).toBe(403)
    const unknown = await create(ucan(await invocation(user, 'domain/transfer')))
    expect(unknown.statusCode).toBe(403)
  })

  it('lets only a controller update or deactivate, and never on the API-key-only routes', async () => {
    const [owner, other] = [await generateSigner(), await generateSigner()]
    const domain = (await create(ucan(await invocation(owner, 'domain/create')))).json()
    const patch = async (signer: OracleSigner) => await t.app.inject({
      method: 'PATCH',
      url: `/v1/domains/${domain.did}`,
      headers: ucan(await invocation(signer, 'domain/update')),
      payload: { metadata: { name: 'taken over' } }
    })
    const refused = await patch(other)
    expect(refused.statusCode).toBe(403)
    expect(refused.json().code).toBe('DOMAIN_NOT_CONTROLLER')
    expect((await patch(owner)).statusCode).toBe(200)
    const deactivate = await t.app.inject({
      method: 'POST',
      url: `/v1/domains/${domain.did}/deactivate`,
      headers: ucan(await invocation(owner, 'domain/deactivate'))
    })
    expect(deactivate.json().status).toBe('deactivated')
    const keys = await t.app.inject({
      method: 'GET', url: '/v1/api-keys', headers: ucan(await invocation(owner, 'domain/read'))
    })
    expect(keys.statusCode).toBe(403)
    expect(keys.json().code).toBe('DOMAIN_UCAN_NOT_ACCEPTED')
  })

  it('votes as the account, with the voter role it held when the proposal opened, once per account', async () => {
    const [voter, outsider, late] = [await generateSigner(), await generateSigner(), await generateSigner()]
    const registrar = await t.issueKey(['registrar', 'compliance'])
    const domain = await t.createDomain(registrar.key)
    await t.grant(voter.did(), ['voter'])
    const others = [await t.issueKey(['voter']), await t.issueKey(['voter'])]
    const proposal = await createProposal(t, domain.did, registrar.key,
      withCouncil([{ account: voter.did() }, ...others]))
    const ungranted = await vote(t, proposal.id, ucan(await invocation(outsider, 'verification/vote')))
    expect(ungranted.statusCode).toBe(403)
    expect(ungranted.json().code).toBe('DOMAIN_FORBIDDEN')
    await t.grant(late.did(), ['voter'])
    const tooLate = await vote(t, proposal.id, ucan(await invocation(late, 'verification/vote')))
    expect(tooLate.statusCode).toBe(403)
    expect(tooLate.json().code).toBe('DOMAIN_NOT_IN_ELECTORATE')
    const cast = await vote(t, proposal.id, ucan(await invocation(voter, 'verification/vote')))
    expect(cast.statusCode).toBe(201)
    expect(cast.json().votes).toEqual([
      expect.objectContaining({ keyId: null, account: voter.did(), service: null, vote: 'yes', supersededAt: null })
    ])
    const sameAccountKey = await t.issueKey(['voter'], voter.did())
    const again = await vote(t, proposal.id, sameAccountKey.key)
    expect(again.statusCode).toBe(409)
    expect(again.json().code).toBe('DOMAIN_ALREADY_VOTED')
    const changed = await vote(t, proposal.id, sameAccountKey.key, 'no')
    expect(changed.statusCode).toBe(201)
    expect(changed.json().tally).toMatchObject({ yes: 0, no: 1, total: 1 })
    expect(changed.json().votes.map((v: Record<string, unknown>) => [v.keyId, v.vote, v.supersededAt !== null]))
      .toEqual([[null, 'yes', true], [sameAccountKey.id, 'no', false]])
    const mine = await t.app.inject({
      method: 'GET',
      url: '/v1/verification-proposals?voter=me&voted=true',
      headers: ucan(await invocation(voter, 'domain/read'))
    })
    expect(mine.statusCode).toBe(200)
    expect(mine.json().items.map((p: { id: string }) => p.id)).toEqual([proposal.id])
  })

  it('lets an agent with the registrar role register for a household, recording both', async () => {
    const [agent, household, gateway] = [await generateSigner(), await generateSigner(), await generateSigner()]
    const proof = await delegation(agent, gateway)
    const token = async () => await invocation(gateway, 'domain/create', { account: agent.did(), proofs: [proof] })
    const body = { ...DOMAIN, onBehalfOf: household.did() }
    const refused = await create(ucan(await token()), body)
    expect(refused.statusCode).toBe(403)
    expect(refused.json().code).toBe('DOMAIN_FORBIDDEN')
    await t.grant(agent.did(), ['registrar'])
    const res = await create(ucan(await token()), body)
    expect(res.statusCode).toBe(201)
    expect(res.json().controllers).toEqual([household.did()])
    expect(res.json().createdBy).toEqual({ keyId: null, account: agent.did(), service: gateway.did() })
  })
})

describe('API keys and account roles', () => {
  it('never lets a key of account A change account B\'s domain', async () => {
    const [a, b] = [await t.issueKey(['registrar']), await t.issueKey(['registrar'])]
    const domainOfB = await t.createDomain(b.key)
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/v1/domains/${domainOfB.did}`,
      headers: t.auth(a.key),
      payload: { metadata: { name: 'mine' } }
    })
    expect(res.statusCode).toBe(403)
    expect(res.json().code).toBe('DOMAIN_NOT_CONTROLLER')
    const deactivate = await t.app.inject({
      method: 'POST', url: `/v1/domains/${domainOfB.did}/deactivate`, headers: t.auth(a.key)
    })
    expect(deactivate.statusCode).toBe(403)
  })

  it('lets a reader read but not write', async () => {
    const registrar = await t.issueKey(['registrar'])
    const domain = await t.createDomain(registrar.key)
    const reader = await t.issueKey(['reader'])
    for (const url of [`/v1/domains/${domain.did}`, '/v1/domains', `/v1/domains/${domain.did}/history`]) {
      expect((await t.app.inject({ method: 'GET', url, headers: t.auth(reader.key) })).statusCode).toBe(200)
    }
    const write = await create(t.auth(reader.key))
    expect(write.statusCode).toBe(403)
    expect(write.json().code).toBe('DOMAIN_FORBIDDEN')
    const patch = await t.app.inject({
      method: 'PATCH', url: `/v1/domains/${domain.did}`, headers: t.auth(reader.key), payload: { metadata: {} }
    })
    expect(patch.statusCode).toBe(403)
  })

  it('applies an account\'s grants to its keys at once, and a key only uses roles it names', async () => {
    const account = randomAccount()
    const key = await t.issueKey(['registrar'], account)
    expect((await create(t.auth(key.key))).statusCode).toBe(201)
    const put = await t.app.inject({
      method: 'PUT',
      url: `/v1/accounts/${account}/roles`,
      headers: t.auth(ADMIN_KEY),
      payload: { roles: ['voter', 'admin'] }
    })
    expect(put.json()).toEqual({ account, roles: ['voter', 'admin'], organisation: null })
    expect((await create(t.auth(key.key))).statusCode).toBe(403)
    const keys = await t.app.inject({ method: 'GET', url: '/v1/api-keys', headers: t.auth(key.key) })
    expect(keys.statusCode).toBe(403)
  })

  it('lets only admins read and set account roles, validating the DID and the roles', async () => {
    const registrar = await t.issueKey(['registrar'])
    const account = randomAccount()
    const url = `/v1/accounts/${account}/roles`
    expect((await t.app.inject({ method: 'GET', url, headers: t.auth(registrar.key) })).statusCode).toBe(403)
    expect((await t.app.inject({
      method: 'PUT', url, headers: t.auth(registrar.key), payload: { roles: ['admin'] }
    })).statusCode).toBe(403)
    const none = await t.app.inject({ method: 'GET', url, headers: t.auth(ADMIN_KEY) })
    expect(none.json()).toEqual({ account, roles: [], organisation: null })
    for (const [path, roles] of [['/v1/accounts/bob/roles', []], [url, ['root']], [url, ['voter', 'voter']]] as const) {
      const res = await t.app.inject({ method: 'PUT', url: path, headers: t.auth(ADMIN_KEY), payload: { roles } })
      expect(res.statusCode).toBe(400)
    }
  })
})
