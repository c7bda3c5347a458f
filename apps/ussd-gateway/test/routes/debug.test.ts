import { describe, expect, it } from 'vitest'
import { Dialer, fileApp, OPERATOR_TOKEN, withDetachedApp } from '../helper.ts'

const auth = { authorization: `Bearer ${OPERATOR_TOKEN}` }

describe('operator routes', () => {
  const ctx = fileApp()

  it('returns exactly the spec\'s debug record, with the last screen and the active sessions', async () => {
    const phone = new Dialer(ctx.app)
    const welcome = await phone.dial()
    const res = await ctx.app.inject({ method: 'GET', url: `/api/ussd/debug/${phone.sessionId}`, headers: auth })
    expect(res.statusCode).toBe(200)
    const record = res.json()
    expect(Object.keys(record).sort()).toEqual(['activeSessions', 'debugInfo', 'sessionId'])
    expect(Object.keys(record.debugInfo).sort()).toEqual(['context', 'state', 'status'])
    expect(record).toMatchObject({
      sessionId: phone.sessionId,
      debugInfo: {
        state: 'preMenu',
        status: 'active',
        context: {
          sessionId: phone.sessionId,
          phoneNumber: phone.phoneNumber,
          message: welcome.screen,
          isAuthenticated: false
        }
      }
    })
    expect(Object.keys(record.debugInfo.context).sort()).toEqual([
      'isAuthenticated',
      'message',
      'phoneNumber',
      'sessionId'
    ])
    expect(record.activeSessions).toContain(phone.sessionId)
  })

  it('never shows a PIN, a sealed PIN or drafts, and reports authentication after sign-up', async () => {
    const phone = new Dialer(ctx.app)
    await phone.dial('2*2')
    for (const input of ['Esther Njeri', 'esther@example.org', '73914']) await phone.send(input)
    const mid = await ctx.app.inject({ method: 'GET', url: `/api/ussd/debug/${phone.sessionId}`, headers: auth })
    expect(mid.json().debugInfo.state).toBe('createPinConfirm')
    expect(mid.body).not.toMatch(/73914|v1\$|Esther|esther@/)
    const created = await phone.send('73914')
    const done = await ctx.app.inject({ method: 'GET', url: `/api/ussd/debug/${phone.sessionId}`, headers: auth })
    expect(done.json().debugInfo).toMatchObject({ state: 'createDone', context: { isAuthenticated: true } })
    expect(done.body).not.toContain('73914')
    // Screens of a logged-in session show the account (its id, then name, phone and email): withheld.
    const customerId = /C[0-9A-F]{8}/.exec(created.screen)?.[0]
    expect(customerId).toBeDefined()
    await phone.send('1')
    await phone.send('1')
    const details = await ctx.app.inject({ method: 'GET', url: `/api/ussd/debug/${phone.sessionId}`, headers: auth })
    expect(details.json().debugInfo).toMatchObject({
      state: 'accountDetails',
      context: { message: '(withheld: a logged-in screen)', isAuthenticated: true }
    })
    expect(details.body).not.toMatch(new RegExp(`${customerId ?? 'C'}|Esther|esther@`))
  })

  it('lists the active sessions with their count', async () => {
    const phones = [new Dialer(ctx.app), new Dialer(ctx.app)]
    for (const phone of phones) await phone.dial()
    const res = await ctx.app.inject({ method: 'GET', url: '/api/ussd/sessions', headers: auth })
    expect(res.statusCode).toBe(200)
    const { activeSessions, count } = res.json()
    expect(count).toBe(activeSessions.length)
    for (const phone of phones) expect(activeSessions).toContain(phone.sessionId)
  })

  it('answers 404 JSON with a clear message for unknown sessions', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/ussd/debug/never-started', headers: auth })
    expect(res.statusCode).toBe(404)
    expect(res.json()).toEqual({
      statusCode: 404,
      error: 'Not Found',
      code: 'USSD_SESSION_NOT_FOUND',
      message: 'Session never-started not found: it expired after inactivity, ended, or never started'
    })
  })

  it('requires the operator bearer token', async () => {
    for (const headers of [
      {},
      { authorization: 'Bearer wrong-token-0123456789' },
      { authorization: `Basic ${OPERATOR_TOKEN}` }
    ]) {
      for (const url of ['/api/ussd/sessions', '/api/ussd/debug/x']) {
        const res = await ctx.app.inject({ method: 'GET', url, headers })
        expect(res.statusCode).toBe(401)
        expect(res.json()).toMatchObject({ statusCode: 401 })
        expect(res.headers['www-authenticate']).toMatch(/^Bearer/)
      }
    }
  })

  it('is off in production and in tests without a token, and open in development only', async () => {
    for (const [env, expected] of [
      ['production', 404],
      ['test', 404],
      ['development', 200]
    ] as const) {
      await withDetachedApp({ NODE_ENV: env }, async (app) => {
        expect((await app.inject({ method: 'GET', url: '/api/ussd/sessions' })).statusCode, env).toBe(expected)
        expect((await app.inject({ method: 'GET', url: '/api/ussd/debug/x' })).statusCode, env).toBe(404)
      })
    }
  })
})
