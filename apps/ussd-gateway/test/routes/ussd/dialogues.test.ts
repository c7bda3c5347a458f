import { describe, expect, it } from 'vitest'
import { atPinPrompt, createAccount, Dialer, fileApp, newPhone, OPERATOR_TOKEN, pinReset } from '../../helper.ts'

const OPERATOR = { authorization: `Bearer ${OPERATOR_TOKEN}` }
const WELCOME = 'CON Welcome to Impact Platform\n1. Know More\n2. Account\n3. Language/Lugha\n*. Exit'
const LOCKED_NOW =
  'END Incorrect PIN (3/3). Your account is now locked for 15 minutes. Try again then, or contact support.'
const locked = (id: string) =>
  `END Account ${id} is locked after 3 incorrect PINs. Try again in 15 minutes, or contact support.`

describe('USSD dialogues (Africa\'s Talking, cumulative text)', () => {
  const ctx = fileApp()

  it('answers the first hop with the welcome menu as text/plain CON, for form and JSON bodies', async () => {
    for (const json of [false, true]) {
      const reply = await new Dialer(ctx.app, { json }).dial()
      expect(reply.status).toBe(200)
      expect(reply.type).toMatch(/^text\/plain/)
      expect(reply.body).toBe(WELCOME)
    }
  })

  it('accepts phone numbers without + and keeps networkCode', async () => {
    const phone = new Dialer(ctx.app, { phoneNumber: '254711000111' })
    expect((await phone.dial()).body).toBe(WELCOME)
    const debug = await ctx.app.inject({ method: 'GET', url: `/api/ussd/debug/${phone.sessionId}`, headers: OPERATOR })
    expect(debug.json().debugInfo.context.phoneNumber).toBe('+254711000111')
  })

  it('walks Know More with paging, back and * to the main menu', async () => {
    const phone = new Dialer(ctx.app)
    await phone.dial()
    const info = await phone.send('1')
    expect(info.body)
      .toBe('CON Impact Platform Information\n1. About the service\n2. Accounts and PINs\n3. Staying safe\n0. Back')
    expect((await phone.send('9')).screen)
      .toMatch(/^Invalid choice\. Please pick a number from the menu\.\nImpact Platform Information/)
    const page1 = await phone.send('2')
    expect(page1.screen).toMatch(/^Create an account with your name/)
    expect(page1.screen).toMatch(/\n98\. More\n0\. Back$/)
    const page2 = await phone.send('98')
    expect(page2.screen).toMatch(/account is locked for a while\.\n0\. Back$/)
    expect((await phone.send('0')).screen).toBe(page1.screen)
    // A refusal is said once: paging on and back shows the first page without it.
    expect((await phone.send('7')).screen)
      .toMatch(/^Invalid choice\. Please pick a number from the menu\.\nCreate an account/)
    await phone.send('98')
    expect((await phone.send('0')).screen).toBe(page1.screen)
    expect((await phone.send('0')).screen).toMatch(/^Impact Platform Information/)
    expect((await phone.send('*')).body).toBe(WELCOME)
  })

  it('ends with END on * at the root and frees the session', async () => {
    const phone = new Dialer(ctx.app)
    await phone.dial()
    const bye = await phone.send('*')
    expect(bye.body).toBe('END Thank you for using Impact Platform. Goodbye!')
    const debug = await ctx.app.inject({ method: 'GET', url: `/api/ussd/debug/${phone.sessionId}`, headers: OPERATOR })
    expect(debug.statusCode).toBe(404)
  })

  it('refuses 0 and unknown options at the root with the reason', async () => {
    const phone = new Dialer(ctx.app)
    await phone.dial()
    expect((await phone.send('0')).screen)
      .toBe(`Invalid choice. Please pick a number from the menu.\n${WELCOME.slice(4)}`)
    expect((await phone.send('7')).screen).toMatch(/^Invalid choice/)
    expect((await phone.send('1')).screen).toMatch(/^Impact Platform Information/)
  })

  it('creates an account: name, optional email, PIN twice; shows the id and logs the user in', async () => {
    const phone = new Dialer(ctx.app)
    await phone.dial()
    expect((await phone.send('2')).body)
      .toBe('CON Account\n1. Log in\n2. Create account\n3. Forgot Customer ID\n0. Back')
    expect((await phone.send('2')).body).toBe('CON Enter your full name:\n0. Back')
    expect((await phone.send('J')).screen)
      .toBe('Please enter a name of 2-40 letters (spaces, -, \' and . allowed).\nEnter your full name:\n0. Back')
    expect((await phone.send('J.')).screen).toMatch(/^Please enter a name/)
    // A typographic apostrophe is kept as ' (the details screen below shows it).
    expect((await phone.send('Jean-Paul O\u2019Neil')).body)
      .toBe('CON Enter your email address (optional):\n00. Skip\n0. Back')
    expect((await phone.send('not-an-email')).screen)
      .toMatch(/^Invalid email address\. Try again, or send 00 to skip\./)
    expect((await phone.send('jp@example.org')).body).toBe('CON Create a 5-digit PIN:\n0. Back')
    expect((await phone.send('1234')).screen).toBe('PIN must be exactly 5 digits.\nCreate a 5-digit PIN:\n0. Back')
    expect((await phone.send('12345')).screen).toMatch(/^That PIN is too easy to guess\./)
    expect((await phone.send('11111')).screen).toMatch(/^That PIN is too easy to guess\./)
    expect((await phone.send('48213')).body).toBe('CON Confirm your 5-digit PIN:\n0. Back')
    expect((await phone.send('48231')).screen)
      .toBe('PINs do not match. Please create your PIN again.\nCreate a 5-digit PIN:\n0. Back')
    await phone.send('48213')
    const done = await phone.send('48213')
    expect(done.screen).toMatch(new RegExp('^Account created!\\nYour Customer ID: C[0-9A-F]{8}\\n' +
      'Keep it safe: you need it with your PIN to log in\\.\\n1\\. My Account\\n0\\. Main menu$'))
    const id = /C[0-9A-F]{8}/.exec(done.screen)?.[0] ?? ''
    expect((await phone.send('1')).screen)
      .toBe(`My Account (${id})\n1. Account details\n2. Change PIN\n3. Language/Lugha\n4. Log out\n0. Back`)
    expect((await phone.send('1')).screen)
      .toBe(`Name: Jean-Paul O'Neil\nCustomer ID: ${id}\nPhone: ${phone.phoneNumber}\nEmail: jp@example.org\n0. Back`)
    expect((await phone.send('0')).screen).toMatch(/^My Account/)
    expect((await phone.send('0')).screen)
      .toBe('Welcome, Jean-Paul O\'Neil\n1. Know More\n2. My Account\n3. Language/Lugha\n*. Exit')
    // The language menu returns where it was opened: the welcome menu here, My Account from there.
    await phone.send('3')
    expect((await phone.send('0')).screen).toMatch(/^Welcome, Jean-Paul/)
    await phone.send('3')
    expect((await phone.send('1')).screen).toMatch(/^Language set to English\.\nWelcome, Jean-Paul/)
    await phone.send('2')
    await phone.send('3')
    expect((await phone.send('0')).screen).toMatch(/^My Account/)
    await phone.send('3')
    expect((await phone.send('1')).screen).toMatch(/^Language set to English\.\nMy Account/)
  })

  it('refuses malformed email addresses', async () => {
    // One session per address: the cumulative text of a session is capped at 182 characters.
    const malformed = [
      'jp@-example.org', 'jp@example-.org', '.jp@example.org', 'jp.@example.org', 'j..p@example.org', 'jp@example.c0m'
    ]
    for (const email of malformed) {
      const phone = new Dialer(ctx.app)
      await phone.dial('2*2')
      await phone.send('Jane Doe')
      expect((await phone.send(email)).screen).toMatch(/^Invalid email address\./)
    }
  })

  it('gives distinct random customer ids', async () => {
    const [a, b] = await Promise.all([createAccount(ctx), createAccount(ctx)])
    expect(a.customerId).not.toBe(b.customerId)
  })

  it('logs in with customer id (any case) and PIN, showing every refusal on the way', async () => {
    const { customerId, phone: owner } = await createAccount(ctx, { name: 'Amina Hassan' })
    const phone = new Dialer(ctx.app)
    await phone.dial()
    await phone.send('2')
    expect((await phone.send('1')).body).toBe('CON Enter your Customer ID (e.g. C1A2B3C4D):\n0. Back')
    expect((await phone.send('12345')).screen)
      .toMatch(/^Invalid Customer ID\. It is C followed by 8 digits or letters A-F\.\n/)
    expect((await phone.send('C00000000')).screen)
      .toMatch(/^Customer ID C00000000 was not found\. Check it and try again\.\n/)
    expect((await phone.send(customerId.toLowerCase())).body).toBe('CON Enter your 5-digit PIN:\n0. Back')
    expect((await phone.send('123')).screen).toMatch(/^PIN must be exactly 5 digits\./)
    expect((await phone.send('99999')).screen)
      .toBe('Incorrect PIN (1/3). Please try again.\nEnter your 5-digit PIN:\n0. Back')
    const ok = await phone.send('48213')
    expect(ok.screen).toBe(`Login successful.\nMy Account (${customerId})\n` +
      '1. Account details\n2. Change PIN\n3. Language/Lugha\n4. Log out\n0. Back')
    // Logged in from another phone, the details show the account's own phone.
    expect((await phone.send('1')).screen).toContain(`Phone: ${owner.phoneNumber}\n`)
    await phone.send('0')
    expect((await phone.send('4')).screen).toBe(`You are logged out.\n${WELCOME.slice(4)}`)
  })

  it('locks the account on the third wrong PIN, across sessions, and says why', async () => {
    const { customerId } = await createAccount(ctx)
    const first = await atPinPrompt(ctx, customerId)
    expect((await first.send('11112')).screen).toMatch(/^Incorrect PIN \(1\/3\)/)
    expect((await first.send('11113')).screen).toMatch(/^Incorrect PIN \(2\/3\)/)
    const second = await atPinPrompt(ctx, customerId)
    const lockedNow = await second.send('11114')
    expect(lockedNow.body).toBe(LOCKED_NOW)
    const third = new Dialer(ctx.app)
    await third.dial('2*1')
    expect((await third.send(customerId)).body).toBe(locked(customerId))
  })

  it('tells only the attempt that locked the account that it did, when wrong PINs race', async () => {
    const { customerId } = await createAccount(ctx)
    const first = await atPinPrompt(ctx, customerId)
    for (const pin of ['11112', '11113']) await first.send(pin)
    const racers = await Promise.all(Array.from({ length: 4 }, async () => await atPinPrompt(ctx, customerId)))
    const bodies = await Promise.all(racers.map(async (phone) => (await phone.send('11114')).body))
    expect(bodies.filter((body) => body === LOCKED_NOW)).toHaveLength(1)
    expect(bodies.filter((body) => body === locked(customerId))).toHaveLength(3)
  })

  it('ends sessions already logged in once the account is locked, ' +
    'and a PIN change does not lift the lock', async () => {
    const { phone: details, customerId } = await createAccount(ctx)
    const { phone: changing, customerId: changingId } = await createAccount(ctx)
    const lockOut = async (id: string) => {
      const attacker = await atPinPrompt(ctx, id)
      for (const pin of ['11112', '11113']) await attacker.send(pin)
      expect((await attacker.send('11114')).body).toMatch(/^END Incorrect PIN \(3\/3\)/)
    }
    const LOCKED = 'END Your account was locked. Please log in again later, or contact support.'
    await details.send('1')
    await lockOut(customerId)
    expect((await details.send('1')).body).toBe(LOCKED)

    await changing.send('1')
    await changing.send('2')
    await changing.send('48213')
    expect((await changing.send('60714')).body).toBe('CON Confirm your new PIN:\n0. Back')
    await lockOut(changingId)
    expect((await changing.send('60714')).body).toBe(LOCKED)
    const login = new Dialer(ctx.app)
    await login.dial('2*1')
    expect((await login.send(changingId)).body).toMatch(/^END Account C[0-9A-F]{8} is locked/)

    // Locked while the current PIN is asked for: the right PIN does not get past the lock.
    const { phone: checking, customerId: checkingId } = await createAccount(ctx)
    await checking.send('1')
    expect((await checking.send('2')).body).toBe('CON Enter your current PIN:\n0. Back')
    await lockOut(checkingId)
    expect((await checking.send('48213')).body).toBe(LOCKED)
  })

  it('ends the account actions of sessions that proved a PIN since replaced: ' +
    'a reset, another temporary PIN, a change elsewhere', async () => {
    const REPLACED = 'END Your PIN was changed or reset since you logged in. Please log in again.'
    const reset = async (id: string) => (await pinReset(ctx, id)).json().temporaryPin as string
    const { phone: changing, customerId } = await createAccount(ctx)
    const reading = new Dialer(ctx.app)
    await reading.dial('2*1')
    await reading.send(customerId)
    expect((await reading.send('48213')).screen).toMatch(/^Login successful/)
    await changing.send('1')
    await changing.send('2')
    expect((await changing.send('48213')).body).toBe('CON Enter a new 5-digit PIN:\n0. Back')
    const first = await reset(customerId)
    // The old session can neither set a PIN nor test a guess against the temporary one.
    expect((await changing.send(first)).body).toBe(REPLACED)
    expect((await reading.send('1')).body).toBe(REPLACED)

    // A holder of the first temporary PIN loses it to a second one.
    const early = await atPinPrompt(ctx, customerId)
    expect((await early.send(first)).screen).toMatch(/^Your PIN was reset/)
    const second = await reset(customerId)
    expect((await early.send('60714')).body).toBe(REPLACED)
    const owner = await atPinPrompt(ctx, customerId)
    expect((await owner.send(second)).screen).toMatch(/^Your PIN was reset/)
    await owner.send('60714')
    expect((await owner.send('60714')).screen).toMatch(/^Your PIN was changed\./)

    // A PIN changed in one session ends the others' account actions, not the session that changed it.
    const other = await atPinPrompt(ctx, customerId)
    expect((await other.send('60714')).screen).toMatch(/^Login successful/)
    await owner.send('2')
    await owner.send('60714')
    await owner.send('37281')
    expect((await owner.send('37281')).screen).toMatch(/^Your PIN was changed\./)
    expect((await owner.send('1')).screen).toMatch(/^Name: /)
    expect((await other.send('1')).body).toBe(REPLACED)
  })

  it('answers the unavailable END, not a wrong PIN, when no configured key opens the stored PIN', async () => {
    const { customerId } = await createAccount(ctx)
    // A replica whose key was rotated without PIN_ENCRYPTION_PREVIOUS_KEYS: the right PIN, three times.
    const rotated = await ctx.replica({ PIN_ENCRYPTION_KEY: 'c'.repeat(64) })
    for (let attempt = 0; attempt < 3; attempt++) {
      const phone = new Dialer(rotated)
      await phone.dial('2*1')
      await phone.send(customerId)
      expect((await phone.send('48213')).body).toBe('END Service temporarily unavailable. Please try again later.')
    }
    // Nothing was counted against the user: the right key still logs in.
    const phone = await atPinPrompt(ctx, customerId)
    expect((await phone.send('48213')).screen).toMatch(/^Login successful\./)
  })

  it('resets the attempt count after a successful login', async () => {
    const { customerId } = await createAccount(ctx)
    for (let round = 0; round < 2; round++) {
      const phone = await atPinPrompt(ctx, customerId)
      expect((await phone.send('11112')).screen).toMatch(/^Incorrect PIN \(1\/3\)/)
      expect((await phone.send('11113')).screen).toMatch(/^Incorrect PIN \(2\/3\)/)
      expect((await phone.send('48213')).screen).toMatch(/^Login successful/)
    }
  })

  it('changes the PIN after checking the current one', async () => {
    const { phone, customerId } = await createAccount(ctx)
    await phone.send('1')
    expect((await phone.send('2')).body).toBe('CON Enter your current PIN:\n0. Back')
    expect((await phone.send('22223')).screen)
      .toMatch(/^Incorrect PIN \(1\/3\)\. Please try again\.\nEnter your current PIN:/)
    expect((await phone.send('48213')).body).toBe('CON Enter a new 5-digit PIN:\n0. Back')
    expect((await phone.send('22222')).screen).toMatch(/^That PIN is too easy to guess/)
    expect((await phone.send('48213')).screen)
      .toBe('The new PIN must differ from your current PIN.\nEnter a new 5-digit PIN:\n0. Back')
    expect((await phone.send('60714')).body).toBe('CON Confirm your new PIN:\n0. Back')
    expect((await phone.send('60715')).screen)
      .toBe('PINs do not match. Please enter the new PIN again.\nEnter a new 5-digit PIN:\n0. Back')
    await phone.send('60714')
    expect((await phone.send('60714')).screen).toMatch(/^Your PIN was changed\.\nMy Account/)
    const login = await atPinPrompt(ctx, customerId)
    expect((await login.send('48213')).screen).toMatch(/^Incorrect PIN \(1\/3\)/)
    expect((await login.send('60714')).screen).toMatch(/^Login successful/)
  })

  it('switches to Kiswahili and remembers it for the phone in later sessions', async () => {
    const phoneNumber = newPhone()
    const phone = new Dialer(ctx.app, { phoneNumber })
    await phone.dial()
    expect((await phone.send('3')).body).toBe('CON Choose language / Chagua lugha:\n1. English\n2. Kiswahili\n0. Back')
    const sw = await phone.send('2')
    expect(sw.screen).toBe('Lugha imewekwa: Kiswahili.\n' +
      'Karibu Impact Platform\n1. Fahamu Zaidi\n2. Akaunti\n3. Lugha/Language\n*. Toka')
    const later = new Dialer(ctx.app, { phoneNumber })
    expect((await later.dial()).screen)
      .toBe('Karibu Impact Platform\n1. Fahamu Zaidi\n2. Akaunti\n3. Lugha/Language\n*. Toka')
    // The account menu is a fixed screen, built once per language: each phone sees its own.
    const english = new Dialer(ctx.app, { phoneNumber: newPhone() })
    await english.dial()
    expect((await later.send('2')).screen)
      .toBe('Akaunti\n1. Ingia\n2. Fungua akaunti\n3. Umesahau Namba ya Mteja\n0. Rudi')
    expect((await english.send('2')).screen)
      .toBe('Account\n1. Log in\n2. Create account\n3. Forgot Customer ID\n0. Back')
    expect((await later.send('0')).screen).toMatch(/^Karibu Impact Platform/)
    expect((await later.send('*')).body).toBe('END Asante kwa kutumia Impact Platform. Kwaheri!')
    const back = new Dialer(ctx.app, { phoneNumber })
    await back.dial('3')
    expect((await back.send('1')).screen).toMatch(/^Language set to English\.\nWelcome to Impact Platform/)
  })

  it('goes back one screen with 0 inside flows and to the main menu with *', async () => {
    const phone = new Dialer(ctx.app)
    await phone.dial()
    await phone.send('2')
    await phone.send('2')
    await phone.send('Jane Doe')
    expect((await phone.send('0')).body).toBe('CON Enter your full name:\n0. Back')
    expect((await phone.send('0')).screen).toMatch(/^Account\n/)
    await phone.send('2')
    expect((await phone.send('*')).body).toBe(WELCOME)
  })
})
