import { describe, expect, it } from 'vitest'
import { atSignUpConfirmation, createAccount, Dialer, fileApp, newPhone } from '../../helper.ts'

const TAKEN_EN = 'END This phone number already has an account. Log in with your Customer ID. ' +
  'Forgot it? Choose 3 in the Account menu. Or contact support.'
const TAKEN_SW = 'END Namba hii ya simu tayari ina akaunti. Ingia kwa Namba yako ya Mteja. ' +
  'Umeisahau? Chagua 3 kwenye menyu ya Akaunti. Au wasiliana na huduma kwa wateja.'

describe('one account per phone (USSD_ACCOUNTS_PER_PHONE=1, the default)', () => {
  const ctx = fileApp()

  it('refuses a second sign-up from the same phone before asking for a name, in both languages', async () => {
    const { phone, customerId } = await createAccount(ctx)
    const again = new Dialer(ctx.app, { phoneNumber: phone.phoneNumber })
    await again.dial()
    expect((await again.send('2')).screen).toMatch(/^Account\n1\. Log in\n2\. Create account/)
    expect((await again.send('2')).body).toBe(TAKEN_EN)
    const swahili = new Dialer(ctx.app, { phoneNumber: phone.phoneNumber })
    await swahili.dial('3')
    expect((await swahili.send('2')).screen).toMatch(/^Lugha imewekwa/)
    await swahili.send('2')
    expect((await swahili.send('2')).body).toBe(TAKEN_SW)
    // Logging in still works from that phone, and other phones still sign up.
    const login = new Dialer(ctx.app, { phoneNumber: phone.phoneNumber })
    await login.dial('2*1')
    await login.send(customerId)
    expect((await login.send('48213')).screen).toMatch(/^Umeingia kikamilifu\.\nAkaunti Yangu/)
    await expect(createAccount(ctx)).resolves.toMatchObject({ customerId: expect.stringMatching(/^C/) })
  })

  it('lets only one of two sign-ups racing from one phone create an account', async () => {
    const phoneNumber = newPhone()
    const first = await atSignUpConfirmation(ctx, phoneNumber)
    const second = await atSignUpConfirmation(ctx, phoneNumber)
    const replies = await Promise.all([first.send('48213'), second.send('48213')])
    const bodies = replies.map((reply) => reply.body).sort()
    expect(bodies[0]).toMatch(/^CON Account created!\nYour Customer ID: C[0-9A-F]{8}\n/)
    expect(bodies[1]).toBe(TAKEN_EN)
    // The winner's retry still shows its account.
    const winner = replies[0]?.con === true ? first : second
    expect((await winner.post(winner.text)).body).toBe(bodies[0])
  })
})

describe('more accounts per phone when configured', () => {
  const ctx = fileApp({ USSD_ACCOUNTS_PER_PHONE: '2' })

  it('allows as many sign-ups per phone as USSD_ACCOUNTS_PER_PHONE, then refuses', async () => {
    const phoneNumber = newPhone()
    const { customerId: a } = await createAccount(ctx, { phoneNumber })
    const { customerId: b } = await createAccount(ctx, { phoneNumber })
    expect(a).not.toBe(b)
    expect((await new Dialer(ctx.app, { phoneNumber }).dial('2*2')).body).toBe(TAKEN_EN)
  })
})
