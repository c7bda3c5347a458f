import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { Dialer, fileApp, OPERATOR_TOKEN, type TestApp } from '../helper.ts'

const debug = (app: TestApp, sessionId: string) => app.inject({
  method: 'GET',
  url: `/api/ussd/debug/${encodeURIComponent(sessionId)}`,
  headers: { authorization: `Bearer ${OPERATOR_TOKEN}` }
})

describe('POST /api/ussd/events (end-of-session notification)', () => {
  const ctx = fileApp()

  it('frees the session on the end-of-session notification (form body), ignoring other phones', async () => {
    const phone = new Dialer(ctx.app)
    await phone.dial()
    const notify = (phoneNumber: string) => ctx.app.inject({
      method: 'POST',
      url: '/api/ussd/events',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        date: '2026-11-21 10:00:00',
        sessionId: phone.sessionId,
        serviceCode: '*384*123#',
        networkCode: '63902',
        phoneNumber,
        status: 'Incomplete',
        cost: 'KES 0.0',
        durationInMillis: '2000',
        hopsCount: '1',
        input: '',
        lastAppResponse: 'CON Welcome',
        errorMessage: ''
      }).toString()
    })
    expect((await notify('+254799999999')).json()).toEqual({ received: true })
    expect((await debug(ctx.app, phone.sessionId)).statusCode).toBe(200)
    const res = await notify(phone.phoneNumber)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ received: true })
    expect((await debug(ctx.app, phone.sessionId)).statusCode).toBe(404)
  })

  it('keeps a session freed by a notification that arrives while a hop is still running', async () => {
    const phone = new Dialer(ctx.app)
    await phone.dial('2*2')
    for (const input of ['Grace Achieng', '00']) await phone.send(input)
    // The PIN is sealed with scrypt (40 ms and more): the notification arrives while that hop
    // runs. Were it later, the test would still pass (only earlier breaks it), so leave time.
    const hop = phone.send('48213')
    await sleep(25)
    const notified = ctx.app.inject({
      method: 'POST',
      url: '/api/ussd/events',
      payload: { sessionId: phone.sessionId, phoneNumber: phone.phoneNumber, status: 'Incomplete' }
    })
    expect((await hop).screen).toMatch(/PIN/)
    expect((await notified).json()).toEqual({ received: true })
    expect((await debug(ctx.app, phone.sessionId)).statusCode).toBe(404)
  })

  it('answers 400 JSON to an events call without a session id or phone number, and frees nothing', async () => {
    const phone = new Dialer(ctx.app)
    await phone.dial()
    const incomplete = [
      { status: 'Success', phoneNumber: phone.phoneNumber },
      { sessionId: phone.sessionId, status: 'Success' }
    ]
    for (const payload of incomplete) {
      const res = await ctx.app.inject({ method: 'POST', url: '/api/ussd/events', payload })
      expect(res.statusCode).toBe(400)
      expect(res.json()).toMatchObject({ statusCode: 400, code: 'FST_ERR_VALIDATION' })
    }
    expect((await debug(ctx.app, phone.sessionId)).statusCode).toBe(200)
  })
})
