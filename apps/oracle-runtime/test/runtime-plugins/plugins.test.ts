import { Type } from '@sinclair/typebox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError } from '@impact/service-kit'
import { createHarness, testPlugin, type Harness, type TestUser } from '../support/harness.ts'

const ADMIN = 'operator-token-0123456789'
const admin = { authorization: `Bearer ${ADMIN}` }

const probePlugin = testPlugin({
  name: 'probe',
  description: 'Test plugin: reports who is calling and contributes a tool, a public route and state',
  setup: () => ({
    tools: [
      {
        name: 'probe_echo',
        description: 'Echoes its input',
        parameters: Type.Object({ text: Type.String() }),
        execute: async (args: { text: string }) => `probe:${args.text}`
      }
    ],
    getAuthExcludedRoutes: () => ['GET /probe/public'],
    async routes (app) {
      app.get('/probe/public', async (request) => ({ public: true, auth: request.auth }))
      app.get('/probe/whoami', async (request) => ({
        did: request.auth?.did,
        via: request.auth?.via,
        delegationKept: request.auth?.delegation !== undefined
      }))
      app.get('/probe/option-public', async () => ({ ok: true }))
    },
    loadState: async () => ({ prompt: 'Probe state: loaded before the agent ran.' })
  })
}, { dependencies: ['user-preferences'] })

describe('plugins', () => {
  let h: Harness
  let user: TestUser
  const say = async (u: TestUser, sessionId: string, message: string, on = h) =>
    (await on.send(u.headers, sessionId, message)).json()

  beforeAll(async () => {
    h = await createHarness(
      { CREDITS_ADMIN_TOKEN: ADMIN },
      { plugins: [probePlugin], authExcludedRoutes: ['/probe/option-public'] }
    )
    user = await h.user()
  })
  afterAll(async () => { await h?.close() })

  describe('user-preferences', () => {
    it('answers JSON null before anything is set', async () => {
      const res = await h.app.inject({ method: 'GET', url: '/user-preferences', headers: (await h.user()).headers })
      expect(res.statusCode).toBe(200)
      expect(res.headers['content-type']).toMatch(/application\/json/)
      expect(res.body).toBe('null')
    })

    it('saves preferences through the tool and applies them from the first turn of a new session', async () => {
      const u = await h.user()
      await say(u, await h.newSession(u.headers), 'call yourself Ava')
      await say(u, await h.newSession(u.headers), 'and call me Sam')
      const prefs = (await h.app.inject({ method: 'GET', url: '/user-preferences', headers: u.headers })).json()
      expect(prefs).toMatchObject({ agentName: 'Ava', userName: 'Sam' })
      expect(Date.parse(prefs.updatedAt)).not.toBeNaN()
      const fresh = await say(u, await h.newSession(u.headers), 'hello')
      expect(fresh.message.content).toMatch(/^Hi Sam, this is Ava\./)
      const stranger = await h.user()
      expect((await say(stranger, await h.newSession(stranger.headers), 'hello')).message.content).toMatch(/^Hi! /)
    })

    it('serves a write immediately despite the read cache', async () => {
      const u = await h.user()
      const id = await h.newSession(u.headers)
      await say(u, id, 'answer in French')
      expect(
        (await h.app.inject({ method: 'GET', url: '/user-preferences', headers: u.headers })).json()
      ).toMatchObject({ language: 'French' })
      await say(u, id, 'be formal')
      expect(
        (await h.app.inject({ method: 'GET', url: '/user-preferences', headers: u.headers })).json()
      ).toMatchObject({ language: 'French', formality: 'formal' })
    })

    it('can be switched off with features', async () => {
      const off = await createHarness({}, { features: { 'user-preferences': false } })
      try {
        const u = await off.user()
        expect((await off.app.inject({ method: 'GET', url: '/user-preferences', headers: u.headers })).statusCode).toBe(
          404
        )
        const reply = await say(u, await off.newSession(u.headers), 'call me Sam', off)
        expect(reply.message.content).toContain('You said')
        expect(off.runtime.pluginDecisions).toContainEqual({
          name: 'user-preferences',
          enabled: false,
          reason: 'disabled by features'
        })
      } finally {
        await off.close()
      }
    })
  })

  describe('plugin contributions', () => {
    it('registers plugin routes behind auth unless the plugin or the app excludes them', async () => {
      expect((await h.app.inject({ method: 'GET', url: '/probe/whoami' })).statusCode).toBe(401)
      expect(
        (
          await h.app.inject({
            method: 'GET',
            url: '/probe/public',
            headers: { authorization: 'Bearer junk', 'x-auth-type': 'ucan' }
          })
        ).json()
      ).toEqual({ public: true, auth: null })
      expect((await h.app.inject({ method: 'GET', url: '/probe/option-public' })).json()).toEqual({ ok: true })
    })

    it('keeps the caller\'s own delegation for downstream use and drops someone else\'s', async () => {
      const other = await h.user()
      const own = await h.app.inject({ method: 'GET', url: '/probe/whoami', headers: user.headers })
      expect(own.json()).toEqual({ did: user.did, via: 'invocation', delegationKept: true })
      const foreign = await h.app.inject({
        method: 'GET',
        url: '/probe/whoami',
        headers: { ...user.headers, 'x-ucan-delegation': other.delegation }
      })
      expect(foreign.json()).toEqual({ did: user.did, via: 'invocation', delegationKept: false })
      const bare = await h.app.inject({
        method: 'GET',
        url: '/probe/whoami',
        headers: { 'x-ucan-delegation': user.delegation }
      })
      expect(bare.json()).toEqual({ did: user.did, via: 'delegation', delegationKept: true })
    })

    it('gives the agent plugin tools and loads plugin state into the prompt', async () => {
      const reply = await say(user, await h.newSession(user.headers), 'probe_echo {"text":"ping"}')
      expect(reply.message.content).toContain('probe_echo: probe:ping')
    })

    it('refuses a plugin forced on without its env, or with a disabled dependency', async () => {
      await expect(createHarness({}, { features: { credits: true } })).rejects.toThrow(ConfigError)
      await expect(
        createHarness({}, { plugins: [probePlugin], features: { 'user-preferences': false, probe: true } })
      ).rejects.toThrow(/needs user-preferences/)
      await expect(createHarness({}, { features: { nonsense: true } })).rejects.toThrow(/unknown plugin nonsense/)
    })
  })

  describe('credits', () => {
    let gated: Harness
    beforeAll(async () => {
      gated = await createHarness(
        {
          CREDITS_ADMIN_TOKEN: ADMIN,
          CREDITS_PER_MESSAGE: '2',
          CREDITS_INITIAL_GRANT: '3',
          CREDITS_TOPUP_AMOUNT: '10'
        },
        { features: { credits: true } }
      )
    })
    afterAll(async () => { await gated?.close() })

    it('is off by default', async () => {
      expect((await h.app.inject({ method: 'GET', url: '/credits', headers: user.headers })).statusCode).toBe(404)
    })

    it('charges answered messages and answers 402 with the outstanding claims once the balance runs out', async () => {
      const u = await gated.user()
      const id = await gated.newSession(u.headers)
      expect(
        (
          await gated.app.inject({
            method: 'POST',
            url: `/messages/${id}`,
            headers: u.headers,
            payload: { message: 'one' }
          })
        ).statusCode
      ).toBe(200)
      expect((await gated.app.inject({ method: 'GET', url: '/credits', headers: u.headers })).json()).toMatchObject({
        balance: 1,
        costPerMessage: 2,
        outstandingClaims: []
      })
      const refused = await gated.app.inject({
        method: 'POST',
        url: `/messages/${id}`,
        headers: u.headers,
        payload: { message: 'two', stream: true }
      })
      expect(refused.statusCode).toBe(402)
      const body = refused.json()
      expect(body).toMatchObject({ statusCode: 402, code: 'ORACLE_PAYMENT_REQUIRED' })
      expect(body.claims).toHaveLength(1)
      expect(body.outstandingClaims).toEqual(body.claims)
      const again = await gated.app.inject({
        method: 'POST',
        url: `/messages/${id}`,
        headers: u.headers,
        payload: { message: 'two' }
      })
      expect(again.json().claims).toEqual(body.claims)

      const settle = await gated.app.inject({
        method: 'POST',
        url: `/credits/claims/${body.claims[0] as string}/settle`,
        headers: admin
      })
      expect(settle.json()).toMatchObject({ did: u.did, amount: 10, status: 'paid', balance: 11 })
      expect(
        (
          await gated.app.inject({
            method: 'POST',
            url: `/credits/claims/${body.claims[0] as string}/settle`,
            headers: admin
          })
        ).json().balance
      ).toBe(11)
      expect(
        (
          await gated.app.inject({
            method: 'POST',
            url: `/messages/${id}`,
            headers: u.headers,
            payload: { message: 'three' }
          })
        ).statusCode
      ).toBe(200)
    })

    it('lets an operator grant credits and read accounts with the admin token only', async () => {
      const u = await gated.user()
      const grant = await gated.app.inject({
        method: 'POST',
        url: '/credits/grants',
        headers: admin,
        payload: { did: u.did, amount: 50, reason: 'pilot' }
      })
      expect(grant.json()).toEqual({ did: u.did, balance: 53 })
      expect(
        (
          await gated.app.inject({
            method: 'GET',
            url: `/credits/accounts/${encodeURIComponent(u.did)}`,
            headers: admin
          })
        ).json()
      ).toMatchObject({ balance: 53 })
      expect(
        (await gated.app.inject({ method: 'POST', url: '/credits/grants', payload: { did: u.did, amount: 5 } }))
          .statusCode
      ).toBe(401)
      expect(
        (
          await gated.app.inject({
            method: 'POST',
            url: '/credits/grants',
            headers: u.headers,
            payload: { did: u.did, amount: 5 }
          })
        ).statusCode
      ).toBe(401)
      expect(
        (
          await gated.app.inject({
            method: 'POST',
            url: '/credits/grants',
            headers: admin,
            payload: { did: u.did, amount: -5 }
          })
        ).statusCode
      ).toBe(400)
      expect(
        (await gated.app.inject({ method: 'POST', url: '/credits/claims/claim-unknown/settle', headers: admin }))
          .statusCode
      ).toBe(404)
    })
  })
})
