import { describe, expect, it, onTestFinished, vi } from 'vitest'
import { atPinPrompt, createAccount, fileApp, OPERATOR_TOKEN, pinReset, SUPPORT_TOKEN } from '../helper.ts'

describe('POST /api/ussd/accounts/:customerId/pin-reset', () => {
  const ctx = fileApp()

  it('lets support unlock an account with a temporary PIN that only leads to choosing a new one', async () => {
    const { customerId } = await createAccount(ctx)
    const attacker = await atPinPrompt(ctx, customerId)
    for (const pin of ['11112', '11113']) await attacker.send(pin)
    expect((await attacker.send('11114')).body).toMatch(/now locked/)
    const reset = (id: string, token?: string, agent?: string) => pinReset(ctx, id, token, agent)
    // The operator token reads sessions; it does not reset PINs. Without the right token nothing is validated either.
    expect((await reset(customerId, OPERATOR_TOKEN)).statusCode).toBe(401)
    expect((await reset('12345', 'x'.repeat(24))).statusCode).toBe(401)
    expect((await reset('C00000000')).json()).toMatchObject({ statusCode: 404, code: 'USSD_ACCOUNT_NOT_FOUND' })
    expect((await reset('12345')).statusCode).toBe(400)
    expect((await reset(customerId, SUPPORT_TOKEN, 'no spaces allowed')).statusCode).toBe(400)
    const issued = await reset(customerId.toLowerCase())
    expect(issued.statusCode).toBe(200)
    expect(issued.headers['cache-control']).toBe('no-store')
    const { temporaryPin, expiresAt } = issued.json()
    expect(issued.json().customerId).toBe(customerId)
    expect(temporaryPin).toMatch(/^\d{5}$/)
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(23 * 3600_000)

    const phone = await atPinPrompt(ctx, customerId)
    expect((await phone.send(temporaryPin)).screen)
      .toBe('Your PIN was reset. Choose a new PIN to continue.\nEnter a new 5-digit PIN:\n0. Back')
    expect((await phone.send(temporaryPin)).screen).toMatch(/^The new PIN must differ from your current PIN\./)
    await phone.send('60714')
    expect((await phone.send('60714')).screen).toMatch(/^Your PIN was changed\.\nMy Account \(C/)
    const later = await atPinPrompt(ctx, customerId)
    expect((await later.send(temporaryPin)).screen).toMatch(/^Incorrect PIN \(1\/3\)/)
    expect((await later.send('60714')).screen).toMatch(/^Login successful\./)

    // Unused for a day, the temporary PIN no longer opens anything.
    const { customerId: idle } = await createAccount(ctx)
    const idlePin = (await reset(idle)).json().temporaryPin as string
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 25 * 3600_000 })
    onTestFinished(() => { vi.useRealTimers() })
    const tooLate = await atPinPrompt(ctx, idle)
    expect((await tooLate.send(idlePin)).body)
      .toBe('END Your temporary PIN has expired. Please contact support for a new one.')
  })
})
