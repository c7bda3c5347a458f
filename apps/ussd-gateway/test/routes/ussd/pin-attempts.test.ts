import { describe, expect, it, onTestFinished, vi } from 'vitest'
import { atPinPrompt, createAccount, Dialer, fileApp, pinReset, setupApp, type TestApp } from '../../helper.ts'

const MINUTE = 60_000
const PIN_PROMPT = 'Enter your 5-digit PIN:\n0. Back'
const wrongPin = (n: number) => `CON Incorrect PIN (${n}/3). Please try again.\n${PIN_PROMPT}`
const lockedNow = (wait: string) =>
  `END Incorrect PIN (3/3). Your account is now locked for ${wait}. Try again then, or contact support.`
const locked = (id: string, wait: string) =>
  `END Account ${id} is locked after 3 incorrect PINs. Try again in ${wait}, or contact support.`
const WRONG_PINS = ['11112', '11113', '11114']

/** Moves the clock the app reads (Date only: timers and the database's own clock run on). */
function clock () {
  let now = Date.now()
  vi.useFakeTimers({ toFake: ['Date'], now })
  onTestFinished(() => { vi.useRealTimers() })
  return { advance: (ms: number) => { vi.setSystemTime(now += ms) } }
}

/** What a new session is told when it enters `customerId` to log in. */
async function loginAs (app: TestApp, customerId: string) {
  const phone = new Dialer(app)
  await phone.dial('2*1')
  return (await phone.send(customerId)).body
}

/** Three wrong PINs in one session: answers the last reply. */
async function lockOut (ctx: { app: TestApp }, customerId: string) {
  const attacker = await atPinPrompt(ctx, customerId)
  await attacker.send(WRONG_PINS[0] ?? '')
  await attacker.send(WRONG_PINS[1] ?? '')
  return (await attacker.send(WRONG_PINS[2] ?? '')).body
}

describe('PIN attempts and lockouts', () => {
  const ctx = fileApp({ PIN_LOCKOUT_BASE_SECONDS: '900', PIN_LOCKOUT_MAX_SECONDS: '3600' })

  it('counts attempts before comparing them: of 11 wrong PINs and the right one at once, 3 are compared', async () => {
    const { customerId } = await createAccount(ctx)
    const sessions = await Promise.all(Array.from({ length: 12 }, async () => await atPinPrompt(ctx, customerId)))
    const pins = [...Array.from({ length: 11 }, (_, i) => String(60_000 + i)), '48213']
    const bodies = await Promise.all(sessions.map(async (phone, i) => (await phone.send(pins[i] ?? '')).body))
    const isLocked = (body: string | undefined) => body === locked(customerId, '15 minutes')
    const compared = bodies.slice(0, 11).filter((body) => !isLocked(body))
    const places = [wrongPin(1), wrongPin(2), lockedNow('15 minutes')]
    // Sent last, the right PIN is usually counted after the limit: it finds the account locked like
    // the 8 other attempts that came too late. Counted among the first 3, it logs in instead.
    if (isLocked(bodies[11])) {
      expect(compared.sort()).toEqual(places.sort())
      expect(await loginAs(ctx.app, customerId)).toBe(locked(customerId, '15 minutes'))
    } else {
      expect(bodies[11]).toMatch(/^CON Login successful\./)
      expect(compared).toHaveLength(2)
      expect(places).toEqual(expect.arrayContaining(compared))
    }
  })

  it('lifts a lockout after its cool-down; each lockout doubles it up to the cap, a login starts over', async () => {
    const { customerId } = await createAccount(ctx)
    const time = clock()
    expect(await lockOut(ctx, customerId)).toBe(lockedNow('15 minutes'))
    time.advance(14 * MINUTE)
    expect(await loginAs(ctx.app, customerId)).toBe(locked(customerId, '1 minute'))
    time.advance(MINUTE)
    expect(await lockOut(ctx, customerId)).toBe(lockedNow('30 minutes'))
    time.advance(30 * MINUTE)
    expect(await lockOut(ctx, customerId)).toBe(lockedNow('60 minutes'))
    time.advance(59 * MINUTE)
    expect(await loginAs(ctx.app, customerId)).toBe(locked(customerId, '1 minute'))
    time.advance(MINUTE)
    expect(await lockOut(ctx, customerId)).toBe(lockedNow('60 minutes'))

    time.advance(60 * MINUTE)
    const owner = await atPinPrompt(ctx, customerId)
    expect((await owner.send('11115')).body).toBe(wrongPin(1))
    expect((await owner.send('48213')).screen).toMatch(/^Login successful\./)
    expect(await lockOut(ctx, customerId)).toBe(lockedNow('15 minutes'))
  })

  it('reads the cool-down from the configuration, says it in hours past 90 minutes, in Kiswahili too', async () => {
    const other = await setupApp({ PIN_LOCKOUT_BASE_SECONDS: '7200', PIN_LOCKOUT_MAX_SECONDS: '7200' })
    onTestFinished(async () => { await other.close() })
    const slow = other.app
    const { customerId } = await createAccount(other)
    const phone = new Dialer(slow)
    await phone.dial('3')
    await phone.send('2')
    await phone.send('2')
    await phone.send('1')
    await phone.send(customerId)
    await phone.send(WRONG_PINS[0] ?? '')
    await phone.send(WRONG_PINS[1] ?? '')
    expect((await phone.send(WRONG_PINS[2] ?? '')).body)
      .toBe('END PIN si sahihi (3/3). Akaunti yako imefungwa kwa saa 2. Jaribu tena baadaye, ' +
        'au wasiliana na huduma kwa wateja.')
    expect(await loginAs(slow, customerId)).toBe(locked(customerId, '2 hours'))
  })

  it('makes support\'s reset refuse the PIN that was locked out as the new PIN, across repeated resets', async () => {
    const { customerId } = await createAccount(ctx)
    expect(await lockOut(ctx, customerId)).toBe(lockedNow('15 minutes'))
    await pinReset(ctx, customerId)
    const temporaryPin = (await pinReset(ctx, customerId)).json().temporaryPin as string
    const phone = await atPinPrompt(ctx, customerId)
    expect((await phone.send(temporaryPin)).screen).toMatch(/^Your PIN was reset\. Choose a new PIN to continue\./)
    expect((await phone.send('48213')).screen)
      .toBe('The new PIN must differ from your previous PIN.\nEnter a new 5-digit PIN:\n0. Back')
    expect((await phone.send('60714')).body).toBe('CON Confirm your new PIN:\n0. Back')
    expect((await phone.send('60714')).screen).toMatch(/^Your PIN was changed\./)
    const later = await atPinPrompt(ctx, customerId)
    expect((await later.send('48213')).body).toBe(wrongPin(1))
    expect((await later.send('60714')).screen).toMatch(/^Login successful\./)
    // Once the user chose a PIN, the one before the reset is an ordinary old PIN again.
    await later.send('2')
    await later.send('60714')
    expect((await later.send('48213')).body).toBe('CON Confirm your new PIN:\n0. Back')
  })
})
