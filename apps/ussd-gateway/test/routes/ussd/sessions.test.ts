import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testClock } from '@impact/service-kit/testing'
import { Dialer, OPERATOR_TOKEN, setupApp, type TestApp, type TestContext } from '../../helper.ts'

/** Every string value stored under the app's Redis prefix ('' without Redis). */
async function storedValues (prefix: string): Promise<string> {
  if (process.env.REDIS_URL === undefined || process.env.REDIS_URL === '') return ''
  const redis = new Redis(process.env.REDIS_URL)
  try {
    const keys = await redis.keys(`${prefix}*`)
    const values = await Promise.all(
      keys.map(async (key) => ((await redis.type(key)) === 'string' ? await redis.get(key) : ''))
    )
    expect(values.length).toBeGreaterThan(0)
    return values.join('\n')
  } finally {
    redis.disconnect()
  }
}

const debug = (app: TestApp, sessionId: string) =>
  app.inject({
    method: 'GET',
    url: `/api/ussd/debug/${encodeURIComponent(sessionId)}`,
    headers: { authorization: `Bearer ${OPERATOR_TOKEN}` }
  })

async function newAccount (app: TestApp) {
  const phone = new Dialer(app)
  await phone.dial('2*2')
  for (const input of ['Grace Achieng', '00', '48213']) await phone.send(input)
  const done = await phone.send('48213')
  return /C[0-9A-F]{8}/.exec(done.screen)?.[0] ?? ''
}

const TTL_MS = 180_000

describe('USSD sessions', () => {
  let ctx: TestContext
  const clock = testClock()
  beforeAll(async () => {
    ctx = await setupApp(
      { USSD_SERVICE_CODES: '*384*123#', USSD_SESSION_TTL_SECONDS: String(TTL_MS / 1000) },
      { now: clock.now }
    )
  })
  afterAll(async () => { await ctx?.close() })

  describe('aggregator retries', () => {
    it('replays the stored reply for the same text without advancing', async () => {
      const phone = new Dialer(ctx.app)
      await phone.dial()
      const first = await phone.send('1')
      expect((await phone.post(phone.text)).body).toBe(first.body)
      expect((await phone.post(phone.text)).body).toBe(first.body)
      expect((await phone.send('2')).screen).toMatch(/^Create an account/)
    })

    it('does not count a retried wrong PIN twice', async () => {
      const customerId = await newAccount(ctx.app)
      const phone = new Dialer(ctx.app)
      await phone.dial('2*1')
      await phone.send(customerId)
      const wrong = await phone.send('11112')
      expect(wrong.screen).toMatch(/^Incorrect PIN \(1\/3\)/)
      expect((await phone.post(phone.text)).body).toBe(wrong.body)
      expect((await phone.send('11113')).screen).toMatch(/^Incorrect PIN \(2\/3\)/)
    })

    it('creates one account when the confirming hop is retried, even concurrently', async () => {
      const phone = new Dialer(ctx.app)
      await phone.dial('2*2')
      for (const input of ['Peter Otieno', '00', '48213']) await phone.send(input)
      phone.text = `${phone.text}*48213`
      const replies = await Promise.all([phone.post(phone.text), phone.post(phone.text), phone.post(phone.text)])
      expect(new Set(replies.map((r) => r.body)).size).toBe(1)
      expect(replies[0]?.screen).toMatch(/^Account created!\nYour Customer ID: C[0-9A-F]{8}/)
    })

    it('answers a late retry of an earlier hop with the current screen, and later hops still read right', async () => {
      const phone = new Dialer(ctx.app)
      await phone.dial()
      await phone.send('2')
      await phone.send('2')
      const current = await phone.send('Jane Doe')
      expect(current.screen).toBe('Enter your email address (optional):\n00. Skip\n0. Back')
      // The retry of the `2*2` hop arrives after `2*2*Jane Doe` was answered.
      expect((await phone.post('2*2')).body).toBe(current.body)
      expect((await phone.send('00')).screen).toBe('Create a 5-digit PIN:\n0. Back')
    })

    it('answers a late retry of the first hop (empty text) with the current screen, even at a PIN prompt', async () => {
      const customerId = await newAccount(ctx.app)
      const phone = new Dialer(ctx.app)
      await phone.dial()
      await phone.send('2')
      await phone.send('1')
      const prompt = await phone.send(customerId)
      expect(prompt.screen).toMatch(/^Enter your 5-digit PIN/)
      expect((await phone.post('')).body).toBe(prompt.body)
      expect((await phone.send('48213')).screen).toMatch(/^Login successful\./)
      expect((await phone.post('')).screen).toMatch(/^Login successful\./)
      expect((await phone.send('1')).screen).toMatch(/^Name: Grace Achieng/)
    })

    it('tells a late retry from a new input after a PIN input that held a *', async () => {
      const customerId = await newAccount(ctx.app)
      const phone = new Dialer(ctx.app)
      await phone.dial('2*1')
      await phone.send(customerId)
      expect((await phone.send('11111*11112')).screen).toMatch(/^PIN must be/)
      const late = await phone.post(`2*1*${customerId}*11111`)
      expect(late.screen).toMatch(/^PIN must be/)
      expect((await phone.send('11113')).screen).toMatch(/^Incorrect PIN \(1\/3\)/)
      expect((await phone.send('48213')).screen).toMatch(/^Login successful\./)
    })

    it('replays the END reply when the last hop is retried after the session ended', async () => {
      const phone = new Dialer(ctx.app)
      await phone.dial()
      const bye = await phone.send('*')
      expect(bye.body).toMatch(/^END Thank you/)
      expect((await phone.post(phone.text)).body).toBe(bye.body)
    })

    it('answers a late retry of an earlier hop after the session ended with its END, starting nothing', async () => {
      const phone = new Dialer(ctx.app)
      await phone.dial()
      await phone.send('1')
      await phone.send('0')
      const bye = await phone.send('*')
      expect(bye.body).toMatch(/^END Thank you/)
      for (const text of ['1', '']) expect((await phone.post(text)).body).toBe(bye.body)
      expect((await debug(ctx.app, phone.sessionId)).statusCode).toBe(404)
    })
  })

  describe('cumulative text', () => {
    it('takes * and 0 inside free text as part of the value, and they do not poison later hops', async () => {
      const phone = new Dialer(ctx.app)
      await phone.dial('2*2')
      expect((await phone.send('Mary*Ann')).screen).toMatch(/^Please enter a name of 2-40 letters/)
      expect((await phone.send('Mary Ann')).screen).toBe('Enter your email address (optional):\n00. Skip\n0. Back')
      expect((await phone.send('m0*x@example')).screen).toMatch(/^Invalid email address/)
      expect((await phone.send('00')).screen).toBe('Create a 5-digit PIN:\n0. Back')
      expect(phone.text).toBe('2*2*Mary*Ann*Mary Ann*m0*x@example*00')
    })

    it('treats a typed * as exit to the main menu only when it is the whole input (text gains **)', async () => {
      const phone = new Dialer(ctx.app)
      await phone.dial()
      await phone.send('1')
      expect((await phone.send('*')).screen).toMatch(/^Welcome to Impact Platform/)
      expect(phone.text).toBe('1**')
      expect((await phone.send('2')).screen)
        .toBe('Account\n1. Log in\n2. Create account\n3. Forgot Customer ID\n0. Back')
      expect((await phone.send('1')).screen).toMatch(/^Enter your Customer ID/)
    })

    it('serves an aggregator that sends only the latest input, through two PIN prompts in a row', async () => {
      const customerId = await newAccount(ctx.app)
      const phone = new Dialer(ctx.app)
      await phone.dial()
      await phone.post('2')
      await phone.post('1')
      expect((await phone.post(customerId)).screen).toMatch(/^Enter your 5-digit PIN/)
      expect((await phone.post('11112')).screen).toMatch(/^Incorrect PIN \(1\/3\)/)
      expect((await phone.post('48213')).screen).toMatch(/^Login successful\./)
    })

    it('takes a # the user typed as a character: the next input is new, not a retry', async () => {
      const latest = new Dialer(ctx.app)
      await latest.dial()
      expect((await latest.post('#')).screen).toMatch(/^Invalid choice/)
      expect((await latest.post('1')).screen).toMatch(/^Impact Platform Information/)
      const cumulative = new Dialer(ctx.app)
      await cumulative.dial('2*2')
      expect((await cumulative.send('##')).screen).toMatch(/^Please enter a name/)
      // An aggregator that sends the latest input alone: two characters again, but not the same ones.
      expect((await cumulative.post('Jo')).screen).toMatch(/^Enter your email/)
    })

    it('re-prompts on an empty input (the text gains an empty segment)', async () => {
      const phone = new Dialer(ctx.app)
      await phone.dial()
      await phone.send('1')
      expect((await phone.send('')).screen).toMatch(/^Invalid choice[^\n]*\nImpact Platform Information/)
      expect(phone.text).toBe('1*')
    })
  })

  describe('shortcut dials', () => {
    it('jumps to the menu named by a non-empty first text', async () => {
      expect((await new Dialer(ctx.app).dial('1*3')).screen).toMatch(/^We never ask for your PIN/)
      expect((await new Dialer(ctx.app).dial('2')).screen)
        .toBe('Account\n1. Log in\n2. Create account\n3. Forgot Customer ID\n0. Back')
    })

    it('jumps by the extra segments of a dialled code after a configured base code', async () => {
      const phone = new Dialer(ctx.app, { serviceCode: '*384*123*1*2#' })
      expect((await phone.dial()).screen).toMatch(/^Create an account with your name/)
      expect((await phone.send('0')).screen).toMatch(/^Impact Platform Information/)
    })

    it('stops at the first free-input prompt: shortcuts never log in, create accounts or try PINs', async () => {
      const customerId = await newAccount(ctx.app)
      const phone = new Dialer(ctx.app)
      expect((await phone.dial(`2*1*${customerId}*11112`)).screen).toBe(
        'Enter your Customer ID (e.g. C1A2B3C4D):\n0. Back'
      )
      await phone.send(customerId)
      expect((await phone.send('11113')).screen).toMatch(/^Incorrect PIN \(1\/3\)/)
    })

    it('keeps no PIN, typed ahead in the dialled code or at a prompt, and still tells retries from new ' +
    'inputs', async () => {
      const customerId = await newAccount(ctx.app)
      const phone = new Dialer(ctx.app, { serviceCode: '*384*123*2*1*48213#' })
      expect((await phone.dial()).screen).toMatch(/^Enter your Customer ID/)
      await phone.send(customerId)
      const loggedIn = await phone.send('48213')
      expect(loggedIn.screen).toMatch(/^Login successful\.\nMy Account/)
      expect((await phone.post(phone.text)).body).toBe(loggedIn.body)
      expect((await phone.send('1')).screen).toMatch(new RegExp(`^Name: Grace Achieng\\nCustomer ID: ${customerId}\\n`))
      // With Redis the stored records can be read: no PIN in any of them (sessions, ended sessions, limits).
      expect(await storedValues(ctx.prefix)).not.toContain('48213')
    })

    it('stops at the first refused input and says why', async () => {
      expect((await new Dialer(ctx.app).dial('9*1')).screen).toMatch(
        /^Invalid choice\. Please pick a number from the menu\.\nWelcome/
      )
    })
  })

  describe('binding and ending', () => {
    it('binds a session to its phone number', async () => {
      const owner = new Dialer(ctx.app)
      await owner.dial()
      await owner.send('1')
      const intruder = await owner.post('1*1', { phoneNumber: '+254799999999' })
      expect(intruder).toMatchObject({ status: 200, body: 'END Invalid input. Please try again.' })
      expect((await owner.send('1')).screen).toMatch(/^[^\n]*Impact Platform brings platform services/)
    })

    it('tells a later hop of a session that ended or was freed to dial again, rather than take it for a ' +
    'shortcut dial', async () => {
      const EXPIRED = 'END Your session has expired. Please dial again.'
      const notify = async (phone: Dialer) =>
        await ctx.app.inject({
          method: 'POST',
          url: '/api/ussd/events',
          payload: { sessionId: phone.sessionId, phoneNumber: phone.phoneNumber, status: 'Success' }
        })
      // Ended by the user, then notified as Africa's Talking always does: the text goes on from the END.
      const exited = new Dialer(ctx.app)
      await exited.dial()
      await exited.send('1')
      expect((await exited.send('*')).body).toMatch(/^CON Welcome/)
      expect((await exited.send('*')).body).toMatch(/^END Thank you/)
      expect((await notify(exited)).json()).toEqual({ received: true })
      expect((await exited.send('1')).body).toBe(EXPIRED)
      expect((await debug(ctx.app, exited.sessionId)).statusCode).toBe(404)

      // Freed mid-dialogue by the notification: a late hop is told to dial again, a retry too.
      const freed = new Dialer(ctx.app)
      await freed.dial()
      await freed.send('1')
      await notify(freed)
      expect((await freed.post(freed.text)).body).toBe(EXPIRED)
      expect((await freed.send('1')).body).toBe(EXPIRED)
      expect((await debug(ctx.app, freed.sessionId)).statusCode).toBe(404)
      // An aggregator that reuses ids: a new dial after the notification opens a new session.
      expect((await freed.dial()).body).toMatch(/^CON Welcome/)
    })

    it.runIf(process.env.REDIS_URL !== undefined && process.env.REDIS_URL !== '')(
      'lets any replica serve the next hop through Redis',
      async () => {
        const other = await ctx.replica()
        const phone = new Dialer(ctx.app)
        await phone.dial()
        await phone.send('2')
        const onOther = new Dialer(other, { phoneNumber: phone.phoneNumber })
        Object.assign(onOther, { sessionId: phone.sessionId, text: phone.text })
        expect((await onOther.send('2')).screen).toBe('Enter your full name:\n0. Back')
      }
    )
  })

  describe('expiry', () => {
    it('expires a session after the inactivity TTL: debug 404, and the next dial starts over', async () => {
      const phone = new Dialer(ctx.app)
      await phone.dial()
      await phone.send('1')
      expect((await debug(ctx.app, phone.sessionId)).json().debugInfo.state).toBe('knowMore')
      clock.advance(TTL_MS - 1000)
      await phone.send('1')
      clock.advance(TTL_MS - 1000)
      expect((await debug(ctx.app, phone.sessionId)).statusCode).toBe(200)
      clock.advance(2000)
      const gone = await debug(ctx.app, phone.sessionId)
      expect(gone.statusCode).toBe(404)
      expect(gone.json()).toMatchObject({ statusCode: 404, code: 'USSD_SESSION_NOT_FOUND' })
      expect((await new Dialer(ctx.app, { phoneNumber: phone.phoneNumber }).dial()).screen).toMatch(/^Welcome/)
    })

    it('tells a hop of a session that expired to dial again, in the phone\'s language, and retries alike', async () => {
      const phone = new Dialer(ctx.app)
      await phone.dial()
      await phone.send('3')
      expect((await phone.send('2')).screen).toMatch(/^Lugha imewekwa/)
      await phone.send('2')
      clock.advance(TTL_MS + 1000)
      // The aggregator's session outlived ours: its next hop is not a new dial (no jump into the menu).
      const expired = await phone.send('2')
      expect(expired).toMatchObject({
        status: 200,
        con: false,
        body: 'END Muda wa kipindi chako umekwisha. Tafadhali piga tena.'
      })
      expect((await phone.post(phone.text)).body).toBe(expired.body)
      expect((await debug(ctx.app, phone.sessionId)).statusCode).toBe(404)
      const list = await ctx.app.inject({
        method: 'GET',
        url: '/api/ussd/sessions',
        headers: { authorization: `Bearer ${OPERATOR_TOKEN}` }
      })
      expect(list.json().activeSessions).not.toContain(phone.sessionId)
      // A session never seen that opens with text is a shortcut dial, as before.
      expect((await new Dialer(ctx.app).dial('2')).screen).toMatch(/^Account/)
    })

    it('leaves no expiry answer for a session that ended or was freed by the aggregator\'s notification', async () => {
      const phone = new Dialer(ctx.app)
      await phone.dial()
      await phone.send('1')
      clock.advance(TTL_MS + 1000)
      expect(
        (
          await ctx.app.inject({
            method: 'POST',
            url: '/api/ussd/events',
            payload: { sessionId: phone.sessionId, phoneNumber: phone.phoneNumber, status: 'Success' }
          })
        ).statusCode
      ).toBe(200)
      expect((await phone.post('2')).screen).toMatch(/^Account/)

      const exited = new Dialer(ctx.app)
      await exited.dial()
      expect((await exited.send('*')).body).toMatch(/^END Thank you/)
      clock.advance(TTL_MS + 1000)
      expect((await exited.post('2')).screen).toMatch(/^Account/)
    })
  })
})
