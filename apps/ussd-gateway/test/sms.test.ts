import { afterAll, describe, expect, it, onTestFinished } from 'vitest'
import { captureLogs, freshIdentity, until } from '@impact/service-kit/testing'
import { loadConfig } from '../src/config.ts'
import {
  atPinPrompt,
  createAccount,
  Dialer,
  fileApp,
  newPhone,
  pinReset,
  setupApp,
  TEST_PIN_KEY,
  type TestApp
} from './helper.ts'
import { startSmsAggregator, type SmsAggregator } from './sms-aggregator.ts'

const API_KEY = 'atsk_test_0123456789abcdef0123456789abcdef'
const aggregator: SmsAggregator = await startSmsAggregator(API_KEY)
afterAll(async () => { await aggregator.close() })

const SMS_ENV = {
  SMS_PROVIDER: 'africastalking',
  SMS_BASE_URL: aggregator.url,
  SMS_USERNAME: 'sandbox',
  SMS_API_KEY: API_KEY,
  SMS_SENDER_ID: 'IMPACT',
  SMS_MAX_ATTEMPTS: '3',
  SMS_RETRY_BASE_MS: '100',
  LOG_LEVEL: 'info'
}

const recentSms = async (app: TestApp) => (await app.inject({ method: 'GET', url: '/simulator/sms' })).json()
const messagesTo = (phone: string) => aggregator.to(phone).map((sms) => sms.message)
/** Waits until `phone` got `n` SMS, and a moment more for any that should not come. */
async function smsTo (phone: string, n: number, timeout = 5000) {
  await until(() => aggregator.to(phone).length >= n, { timeout })
  await new Promise((resolve) => setTimeout(resolve, 300))
  return messagesTo(phone)
}

describe('SMS through Africa\'s Talking', () => {
  const logs = captureLogs()
  const ctx = fileApp(SMS_ENV, { logStream: logs.stream })
  const app = { get app () { return ctx.app } }

  it('sends the Customer ID at sign-up once, in the language of the dialogue', async () => {
    const { phone, customerId } = await createAccount(app)
    await phone.post(phone.text)
    const [text] = await smsTo(phone.phoneNumber, 1)
    expect(text).toBe(`Welcome to Impact Platform! Your Customer ID is ${customerId}. You need it with your PIN ` +
      'to log in. Never share your PIN: we never ask for it.')
    expect(aggregator.to(phone.phoneNumber)).toEqual([expect.objectContaining({
      apiKey: API_KEY, accept: 'application/json', username: 'sandbox', from: 'IMPACT'
    })])

    const swahili = new Dialer(app.app)
    await swahili.dial('3*2')
    for (const input of ['2', '2', 'Amina Njeri', '00', '48213']) await swahili.send(input)
    const done = await swahili.send('48213')
    const id = /C[0-9A-F]{8}/.exec(done.screen)?.[0]
    expect(await smsTo(swahili.phoneNumber, 1)).toEqual([expect.stringMatching(
      new RegExp(`^Karibu Impact Platform! Namba yako ya Mteja ni ${id}\\.`))])
  })

  it('sends support\'s temporary PIN to the registered phone, in the language chosen there', async () => {
    const { phone, customerId } = await createAccount(app)
    for (const input of ['0', '3', '2']) await phone.send(input)
    await smsTo(phone.phoneNumber, 1)
    const issued = (await pinReset(app, customerId)).json()
    expect(issued.smsQueued).toBe(true)
    const texts = await smsTo(phone.phoneNumber, 2)
    expect(texts[1]).toBe(`Impact Platform: PIN ya muda ya ${customerId} ni ${issued.temporaryPin as string}. ` +
      'Ndani ya saa 24, ingia nayo na uchague PIN mpya. Usimpe mtu.')
  })

  it('tells the account\'s own phone of a lockout, whichever phone typed the wrong PINs', async () => {
    const { phone, customerId } = await createAccount(app)
    const attacker = await atPinPrompt(app, customerId)
    for (const pin of ['11112', '11113']) await attacker.send(pin)
    expect((await attacker.send('11114')).body).toMatch(/now locked/)
    const texts = await smsTo(phone.phoneNumber, 2)
    expect(texts[1]).toBe(`Impact Platform: account ${customerId} is locked for 15 minutes after 3 incorrect PINs. ` +
      'If this was not you, contact support.')
    expect(aggregator.to(attacker.phoneNumber)).toEqual([])
  })

  it('sends a forgotten Customer ID to the registered phone once per session, a retried hop included', async () => {
    const { phone: owner, customerId } = await createAccount(app)
    await smsTo(owner.phoneNumber, 1)
    const forgot = new Dialer(app.app, { phoneNumber: owner.phoneNumber })
    await forgot.dial('2')
    await forgot.send('3')
    const shown = await forgot.send('48213')
    expect(shown.screen).toBe(`Your Customer ID: ${customerId}\nKeep it safe: you need it with your PIN to log in.\n` +
      'We also sent it to this phone by SMS.\n1. Log in\n0. Back')
    expect((await forgot.post(forgot.text)).body).toBe(shown.body)
    const texts = await smsTo(owner.phoneNumber, 2)
    expect(texts).toHaveLength(2)
    expect(texts[1]).toBe(texts[0])
    const again = new Dialer(app.app, { phoneNumber: owner.phoneNumber })
    await again.dial('2')
    await again.send('3')
    await again.send('48213')
    expect(await smsTo(owner.phoneNumber, 3)).toHaveLength(3)
  })

  it('retries a send that failed, and gives up after SMS_MAX_ATTEMPTS with a log line that holds no key', async () => {
    const flaky = newPhone()
    aggregator.script(flaky, [{ kind: 'http', status: 503 }, { kind: 'recipient', statusCode: 500, status: 'Failed' }])
    const down = newPhone()
    aggregator.script(down, Array.from({ length: 5 }, () => ({ kind: 'http', status: 502 }) as const))
    const refused = newPhone()
    aggregator.script(refused, [{ kind: 'recipient', statusCode: 403, status: 'InvalidPhoneNumber' }])
    await createAccount(app, { phoneNumber: flaky })
    await createAccount(app, { phoneNumber: down })
    await createAccount(app, { phoneNumber: refused })
    expect(await smsTo(flaky, 3)).toHaveLength(3)
    await until(() => logs.lines().filter((line) => line.msg === 'sms given up').length >= 2)
    expect(await smsTo(down, 3)).toHaveLength(3)
    expect(aggregator.to(refused)).toHaveLength(1)

    const lines = logs.lines()
    const givenUp = lines.filter((line) => line.msg === 'sms given up')
    expect(givenUp).toEqual(expect.arrayContaining([
      expect.objectContaining({ kind: 'customerId', attempts: 3, reason: 'HTTP 502', to: expect.stringMatching(/\*/) }),
      expect.objectContaining({ kind: 'customerId', attempts: 1, reason: 'InvalidPhoneNumber (403)' })
    ]))
    expect(lines.filter((line) => line.msg === 'sms send failed, will retry').length).toBeGreaterThanOrEqual(4)
    expect(lines.filter((line) => line.msg === 'sms sent').length).toBeGreaterThanOrEqual(1)
    const text = logs.text()
    expect(text).not.toContain(API_KEY)
    expect(text).not.toContain(down)
    expect(text).not.toContain('Your Customer ID is')

    const recent = await recentSms(app.app)
    expect(recent.enabled).toBe(true)
    expect(recent.messages).toEqual(expect.arrayContaining([
      expect.objectContaining({ to: down, kind: 'customerId', status: 'failed' }),
      expect.objectContaining({ to: flaky, kind: 'customerId', status: 'sent' })
    ]))
  })

  it('never holds a hop while the aggregator has not answered', async () => {
    const phone = newPhone()
    aggregator.script(phone, [{ kind: 'hang' }])
    const { done } = await createAccount(app, { phoneNumber: phone })
    expect(done.screen).toMatch(/^Account created!/)
    await until(() => aggregator.to(phone).length === 1)
  })
})

describe('SMS with a wrong API key', () => {
  it('retries until a replica with the right key sends it (with Redis: any replica drains the queue)', async () => {
    const logs = captureLogs()
    const wrong = await setupApp({ ...SMS_ENV, SMS_API_KEY: 'not-the-key', SMS_MAX_ATTEMPTS: '20' }, {
      logStream: logs.stream
    })
    onTestFinished(wrong.close)
    const phone = newPhone()
    await createAccount(wrong, { phoneNumber: phone })
    const refused = (line: Record<string, unknown>) =>
      line.msg === 'sms send failed, will retry' && line.reason === 'HTTP 401'
    await until(() => logs.lines().some(refused))
    expect(aggregator.to(phone)).toEqual([])
    expect(logs.text()).not.toContain('not-the-key')
    if (wrong.config.REDIS_URL === undefined) return
    // The key is fixed by rolling the replicas: one with the right key starts, the wrong one stops.
    await wrong.replica({ SMS_API_KEY: API_KEY })
    await wrong.app.close()
    // The next attempt waits out the backoff grown by the refused ones: seconds, not milliseconds.
    expect(await smsTo(phone, 1, 20_000)).toHaveLength(1)
  }, 30_000)
})

describe('SMS off', () => {
  const ctx = fileApp()

  it('sends nothing and lists, in development, what would have been sent', async () => {
    const { phone, customerId } = await createAccount(ctx)
    const issued = (await pinReset(ctx, customerId)).json()
    expect(issued.smsQueued).toBe(false)
    const recent = await recentSms(ctx.app)
    expect(recent.messages.filter((sms: { to: string }) => sms.to === phone.phoneNumber)).toEqual([
      expect.objectContaining({
        kind: 'temporaryPin', status: 'off', text: expect.stringContaining(issued.temporaryPin as string)
      }),
      expect.objectContaining({ kind: 'customerId', status: 'off', text: expect.stringContaining(customerId) })
    ])
    expect(aggregator.to(phone.phoneNumber)).toEqual([])
  })

  it('keeps no texts in production, even with the simulator on', async () => {
    const identity = await freshIdentity()
    const prod = await setupApp({
      NODE_ENV: 'production',
      SIMULATOR_ENABLED: 'true',
      USSD_PRIVATE_KEY: identity.key,
      PIN_ENCRYPTION_KEY: TEST_PIN_KEY
    })
    onTestFinished(prod.close)
    await createAccount(prod)
    expect(await recentSms(prod.app)).toEqual({ enabled: false, messages: [] })
  })
})

describe('SMS configuration', () => {
  it('needs the base URL, username and API key with a provider, and never echoes the key', () => {
    expect(() => loadConfig({ SMS_PROVIDER: 'africastalking', SMS_API_KEY: API_KEY }))
      .toThrow(/SMS_PROVIDER=africastalking needs SMS_BASE_URL, SMS_USERNAME/)
    expect(() => loadConfig({ SMS_PROVIDER: 'twilio' })).toThrow(/SMS_PROVIDER: expected 'africastalking'/)
    const badUrl = () =>
      loadConfig({ SMS_PROVIDER: 'africastalking', SMS_BASE_URL: 'ftp://x', SMS_USERNAME: 'u', SMS_API_KEY: API_KEY })
    expect(badUrl).toThrow(/SMS_BASE_URL/)
    expect(badUrl).not.toThrow(new RegExp(API_KEY))
    expect(loadConfig({}).SMS_PROVIDER).toBeUndefined()
  })
})
