import { describe, expect, it } from 'vitest'
import { atPinPrompt, createAccount, Dialer, fileApp, newPhone, type TestApp } from '../../helper.ts'

const FORGOT_PIN = 'Enter your 5-digit PIN to see your Customer ID:\n0. Back'
const NO_ACCOUNT = 'END No account is registered to this phone number. Dial from the phone you signed up with, ' +
  'or create an account.'
const LOCKED_NOW =
  'END Incorrect PIN (3/3). Your account is now locked for 15 minutes. Try again then, or contact support.'
const loggedIn = (id: string) => `Login successful.\nMy Account (${id})\n`
const found = (id: string) =>
  `CON Your Customer ID: ${id}\nKeep it safe: you need it with your PIN to log in.\n1. Log in\n0. Back`

/** A new session on `phoneNumber` at Forgot Customer ID's PIN prompt (Account, then 3). */
async function atForgotPin (app: TestApp, phoneNumber: string) {
  const phone = new Dialer(app, { phoneNumber })
  await phone.dial('2')
  expect((await phone.send('3')).body).toBe(`CON ${FORGOT_PIN}`)
  return phone
}

describe('Forgot Customer ID (one account per phone)', () => {
  const ctx = fileApp({ PIN_LOCKOUT_BASE_SECONDS: '900' })

  it('shows the Customer ID to its registered phone after the PIN, then logs in with it', async () => {
    const { phone: owner, customerId } = await createAccount(ctx)
    const phone = new Dialer(ctx.app, { phoneNumber: owner.phoneNumber })
    await phone.dial()
    expect((await phone.send('2')).screen)
      .toBe('Account\n1. Log in\n2. Create account\n3. Forgot Customer ID\n0. Back')
    await phone.send('3')
    expect((await phone.send('123')).screen).toBe(`PIN must be exactly 5 digits.\n${FORGOT_PIN}`)
    expect((await phone.send('48213')).body).toBe(found(customerId))
    expect((await phone.send('1')).body).toBe('CON Enter your 5-digit PIN:\n0. Back')
    expect((await phone.send('48213')).screen).toContain(loggedIn(customerId))
  })

  it('says so in Kiswahili too', async () => {
    const { phone: owner, customerId } = await createAccount(ctx)
    const phone = new Dialer(ctx.app, { phoneNumber: owner.phoneNumber })
    await phone.dial('3*2')
    expect((await phone.send('2')).screen)
      .toBe('Akaunti\n1. Ingia\n2. Fungua akaunti\n3. Umesahau Namba ya Mteja\n0. Rudi')
    expect((await phone.send('3')).screen).toBe('Weka PIN yako ya tarakimu 5 kuona Namba yako ya Mteja:\n0. Rudi')
    expect((await phone.send('48213')).screen).toBe(`Namba yako ya Mteja: ${customerId}\n` +
      'Ihifadhi: utaihitaji pamoja na PIN kuingia.\n1. Ingia\n0. Rudi')
    const stranger = new Dialer(ctx.app)
    await stranger.dial('3*2')
    await stranger.send('2')
    expect((await stranger.send('3')).body).toBe('END Hakuna akaunti iliyosajiliwa kwa namba hii ya simu. ' +
      'Piga kutoka simu uliyojisajili nayo, au fungua akaunti.')
  })

  it('tells a phone without an account so before any PIN, whatever accounts other phones have', async () => {
    await createAccount(ctx)
    const phone = new Dialer(ctx.app, { phoneNumber: newPhone() })
    await phone.dial('2')
    expect((await phone.send('3')).body).toBe(NO_ACCOUNT)
    expect((await new Dialer(ctx.app).dial('2*3')).body).toBe(NO_ACCOUNT)
  })

  it('counts wrong PINs with the login\'s, locks the account at the third, and never shows the id', async () => {
    const { phone: owner, customerId } = await createAccount(ctx)
    const forgot = await atForgotPin(ctx.app, owner.phoneNumber)
    expect((await forgot.send('11112')).screen).toBe(`Incorrect PIN (1/3). Please try again.\n${FORGOT_PIN}`)
    const login = await atPinPrompt(ctx, customerId)
    expect((await login.send('11113')).screen).toMatch(/^Incorrect PIN \(2\/3\)/)
    const locking = await forgot.send('11114')
    expect(locking.body).toBe(LOCKED_NOW)
    expect(locking.body).not.toContain(customerId)
    expect((await login.send('48213')).body).toBe(`END Account ${customerId} is locked after 3 incorrect PINs. ` +
      'Try again in 15 minutes, or contact support.')
    const again = new Dialer(ctx.app, { phoneNumber: owner.phoneNumber })
    await again.dial('2')
    expect((await again.send('3')).body).toBe('END Your account is locked after 3 incorrect PINs. ' +
      'Try again in 15 minutes, or contact support.')
  })

  it('starts the count over once the right PIN shows the id', async () => {
    const { phone: owner, customerId } = await createAccount(ctx)
    const login = await atPinPrompt(ctx, customerId)
    await login.send('11112')
    await login.send('11113')
    const forgot = await atForgotPin(ctx.app, owner.phoneNumber)
    expect((await forgot.send('48213')).body).toBe(found(customerId))
    expect((await login.send('11114')).screen).toMatch(/^Incorrect PIN \(1\/3\)/)
  })

  it('points a second sign-up from the phone to Forgot Customer ID', async () => {
    const { phone: owner, customerId } = await createAccount(ctx)
    const phone = new Dialer(ctx.app, { phoneNumber: owner.phoneNumber })
    await phone.dial('2')
    expect((await phone.send('2')).body).toMatch(/Forgot it\? Choose 3 in the Account menu\./)
    const forgot = await atForgotPin(ctx.app, owner.phoneNumber)
    expect((await forgot.send('48213')).body).toBe(found(customerId))
  })
})

describe('Forgot Customer ID with several accounts on a phone', () => {
  const ctx = fileApp({ USSD_ACCOUNTS_PER_PHONE: '3' })

  it('shows only the account the PIN proves; the PIN counts against the others too', async () => {
    const phoneNumber = newPhone()
    const { customerId: first } = await createAccount(ctx, { phoneNumber, pin: '48213' })
    const { customerId: second } = await createAccount(ctx, { phoneNumber, pin: '60714' })
    const forgot = await atForgotPin(ctx.app, phoneNumber)
    expect((await forgot.send('60714')).body).toBe(found(second))
    expect((await forgot.send('1')).body).toBe('CON Enter your 5-digit PIN:\n0. Back')
    expect((await forgot.send('60714')).screen).toContain(loggedIn(second))
    // The first account was tried with a PIN that is not its own: one attempt counted.
    expect((await (await atPinPrompt(ctx, first)).send('11112')).screen).toMatch(/^Incorrect PIN \(2\/3\)/)
  })

  it('refuses a PIN of none of them, and ends once each is locked', async () => {
    const phoneNumber = newPhone()
    await createAccount(ctx, { phoneNumber, pin: '48213' })
    await createAccount(ctx, { phoneNumber, pin: '60714' })
    const forgot = await atForgotPin(ctx.app, phoneNumber)
    const refused = 'That PIN matches no account on this phone. After 3 incorrect PINs an account is locked.\n' +
      FORGOT_PIN
    expect((await forgot.send('11112')).screen).toBe(refused)
    expect((await forgot.send('11113')).screen).toBe(refused)
    expect((await forgot.send('11114')).body).toBe('END Your account is locked after 3 incorrect PINs. ' +
      'Try again in 15 minutes, or contact support.')
  })

  it('lists every account the PIN proves, and asks for the Customer ID to log in', async () => {
    const phoneNumber = newPhone()
    const { customerId: first } = await createAccount(ctx, { phoneNumber })
    const { customerId: second } = await createAccount(ctx, { phoneNumber })
    const forgot = await atForgotPin(ctx.app, phoneNumber)
    expect((await forgot.send('48213')).body).toBe(`CON Your Customer IDs: ${first}, ${second}\n` +
      'Keep them safe: you need one with its PIN to log in.\n1. Log in\n0. Back')
    expect((await forgot.send('1')).screen).toMatch(/^Enter your Customer ID/)
  })
})
