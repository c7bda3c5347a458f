import { describe, expect, it } from 'vitest'
import { until } from '@impact/service-kit/testing'
import {
  atPinPrompt, createAccount, fileApp, OPERATOR_TOKEN, pinReset, putRoles, type TestContext
} from '../helper.ts'

const PIN = '48213'
const ctx: TestContext = fileApp()

const audit = async (query = '', token = OPERATOR_TOKEN) => await ctx.app.inject({
  url: `/api/ussd/audit${query}`,
  headers: { authorization: `Bearer ${token}` }
})

const entriesOf = async (subject: string) =>
  (await audit('?limit=200')).json().items.filter((entry: { subject: string }) => entry.subject === subject)

describe('GET /api/ussd/audit', () => {
  it('records PIN logins, failures and the lockout, with the hop\'s address and request id, not PINs', async () => {
    const { customerId } = await createAccount(ctx, { pin: PIN })
    const good = await atPinPrompt(ctx, customerId)
    expect((await good.send(PIN)).screen).toMatch(/^Login successful/)
    for (const wrong of ['11111', '22222', '33333']) await (await atPinPrompt(ctx, customerId)).send(wrong)

    const entries = await entriesOf(customerId)
    expect(entries.map((entry: { action: string, outcome: string }) => `${entry.action} ${entry.outcome}`)).toEqual([
      'auth.lockout failure',
      'auth.pin failure',
      'auth.pin failure',
      'auth.pin failure',
      'auth.pin success'
    ])
    for (const entry of entries) {
      expect(entry).toMatchObject({ actor: customerId, ip: '127.0.0.1', traceId: null })
      expect(entry.requestId).toMatch(/^[0-9a-f-]{36}$/)
      expect(entry.details).toMatchObject({ serviceCode: '*384*123#', state: expect.any(String) })
    }
    expect(entries.at(-1).details).toMatchObject({ attempts: 1 })
    expect(new Set(entries.map((entry: { requestId: string }) => entry.requestId)).size).toBe(4)
    const text = JSON.stringify(entries)
    for (const pin of [PIN, '11111', '22222', '33333']) expect(text).not.toContain(pin)
  }, 30_000)

  it('records a support reset by its agent and role changes, and every operator request', async () => {
    const { customerId } = await createAccount(ctx, { pin: PIN })
    expect((await pinReset(ctx, customerId)).statusCode).toBe(200)
    expect((await putRoles(ctx, customerId, { roles: ['household', 'agent'] })).statusCode).toBe(200)
    const entries = await entriesOf(customerId)
    expect(entries.map((entry: { action: string }) => entry.action)).toEqual(['roles.changed', 'pin.reset'])
    expect(entries[0]).toMatchObject({ actor: 'operator', details: { roles: ['household', 'agent'] } })
    expect(entries[1]).toMatchObject({ actor: 'agent.wanjiku@example.org', outcome: 'success' })
    expect(JSON.stringify(entries[1])).not.toMatch(/temporaryPin|"pin"/)

    const requests = async () => await entriesOf('PUT /api/ussd/accounts/:customerId/roles')
    await until(async () => (await requests()).length === 1)
    const success = { action: 'operator.request', outcome: 'success', details: { status: 200 } }
    expect((await requests())[0]).toMatchObject(success)
  }, 30_000)

  it('refuses a reader without the operator token, and records the attempt', async () => {
    const refused = await audit('', 'not-the-token')
    expect(refused.statusCode).toBe(401)
    expect(refused.json().items).toBeUndefined()
    // Recorded once the answer is out, so a moment after the caller has it.
    const refusals = async () => (await entriesOf('GET /api/ussd/audit'))
      .filter((entry: { outcome: string }) => entry.outcome === 'failure')
    await until(async () => (await refusals()).length === 1)
    const refusal = { action: 'operator.request', actor: 'operator', details: { status: 401 } }
    expect((await refusals())[0]).toMatchObject(refusal)
  })

  it('pages newest first with a cursor, and refuses a bad one as a 400', async () => {
    const first = (await audit('?limit=2')).json()
    expect(first.items).toHaveLength(2)
    expect(Number(first.items[0].id)).toBeGreaterThan(Number(first.items[1].id))
    const next = (await audit(`?limit=2&before=${first.nextCursor as string}`)).json()
    expect(Number(next.items[0].id)).toBeLessThan(Number(first.items[1].id))
    const bad = await audit('?before=1;drop')
    expect(bad.statusCode).toBe(400)
    expect(bad.json().code).toBe('FST_ERR_VALIDATION')
  })
})
