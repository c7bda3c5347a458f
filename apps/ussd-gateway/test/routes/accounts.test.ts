import { describe, expect, it, onTestFinished, vi } from 'vitest'
import {
  accountView,
  atPinPrompt,
  createAccount,
  Dialer,
  fileApp,
  OPERATOR_TOKEN,
  pinReset,
  putRoles,
  SUPPORT_TOKEN
} from '../helper.ts'

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

describe('GET /api/ussd/accounts/:customerId', () => {
  const ctx = fileApp()

  it('shows an account\'s identity, roles, language, creation and lock, never its PIN or key', async () => {
    const before = Date.now()
    const { customerId, phone } = await createAccount(ctx)
    const res = await accountView(ctx, customerId.toLowerCase())
    expect(res.statusCode).toBe(200)
    const view = res.json()
    expect(Object.keys(view).sort()).toEqual(['createdAt', 'customerId', 'did', 'language', 'locked', 'roles'])
    expect(view).toMatchObject({ customerId, roles: ['household'], language: 'en', locked: false })
    expect(view.did).toMatch(/^did:key:z6Mk/)
    expect(Date.parse(view.createdAt)).toBeGreaterThanOrEqual(before - 5000)
    expect(Date.parse(view.createdAt)).toBeLessThanOrEqual(Date.now() + 5000)

    const again = new Dialer(ctx.app, { phoneNumber: phone.phoneNumber })
    await again.dial('3')
    expect((await again.send('2')).screen).toMatch(/^Lugha imewekwa/)
    const attacker = await atPinPrompt(ctx, customerId)
    for (const pin of ['11112', '11113', '11114']) await attacker.send(pin)
    expect((await accountView(ctx, customerId)).json()).toMatchObject({ language: 'sw', locked: true })
  })

  it('answers JSON errors: 401 without the operator token, 404 for unknown ids, 400 for malformed ones', async () => {
    const { customerId } = await createAccount(ctx)
    expect((await accountView(ctx, customerId, SUPPORT_TOKEN)).statusCode).toBe(401)
    expect((await accountView(ctx, 'C00000000')).json())
      .toMatchObject({ statusCode: 404, code: 'USSD_ACCOUNT_NOT_FOUND' })
    const malformed = await accountView(ctx, 'X123')
    expect(malformed.statusCode).toBe(400)
    expect(malformed.json()).toMatchObject({ statusCode: 400 })
  })
})

describe('PUT /api/ussd/accounts/:customerId/roles', () => {
  const ctx = fileApp()

  it('makes an account a field agent and back', async () => {
    const { customerId } = await createAccount(ctx)
    const agent = await putRoles(ctx, customerId, { roles: ['household', 'agent'] })
    expect(agent.statusCode).toBe(200)
    expect(agent.json()).toMatchObject({ customerId, roles: ['household', 'agent'], locked: false })
    expect((await accountView(ctx, customerId)).json().roles).toEqual(['household', 'agent'])
    expect((await putRoles(ctx, customerId, { roles: ['agent'] })).json().roles).toEqual(['agent'])
    expect((await putRoles(ctx, customerId, { roles: ['household'] })).json().roles).toEqual(['household'])
    expect((await accountView(ctx, customerId)).json().roles).toEqual(['household'])
  })

  it('refuses unknown, empty or repeated roles with a JSON 400, and unknown accounts with a 404', async () => {
    const { customerId } = await createAccount(ctx)
    for (const body of [{ roles: ['admin'] }, { roles: [] }, { roles: ['agent', 'agent'] }, {}]) {
      const res = await putRoles(ctx, customerId, body)
      expect(res.statusCode, JSON.stringify(body)).toBe(400)
      expect(res.json(), JSON.stringify(body)).toMatchObject({ statusCode: 400 })
    }
    expect((await accountView(ctx, customerId)).json().roles).toEqual(['household'])
    expect((await putRoles(ctx, 'C00000000', { roles: ['agent'] })).json())
      .toMatchObject({ statusCode: 404, code: 'USSD_ACCOUNT_NOT_FOUND' })
    expect((await putRoles(ctx, customerId, { roles: ['agent'] }, SUPPORT_TOKEN)).statusCode).toBe(401)
  })

  it('is in the OpenAPI document with the account\'s schema', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/docs/json' })).json()
    const account = doc.paths['/api/ussd/accounts/{customerId}']
    const roles = doc.paths['/api/ussd/accounts/{customerId}/roles']
    expect(account.get.security).toEqual([{ operatorToken: [] }])
    expect(Object.keys(account.get.responses['200'].content['application/json'].schema.properties).sort())
      .toEqual(['createdAt', 'customerId', 'did', 'language', 'locked', 'roles'])
    expect(roles.put.requestBody.content['application/json'].schema.properties.roles.items).toBeDefined()
    expect(Object.keys(roles.put.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '404']))
  })
})
