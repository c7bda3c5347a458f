import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { captureLogs, Dialer, setupApp, type TestContext } from '../helper.ts'

describe('logging', () => {
  const logs = captureLogs()
  let ctx: TestContext
  beforeAll(async () => { ctx = await setupApp({ LOG_LEVEL: 'trace' }, logs.stream) })
  afterAll(async () => { await ctx?.close() })

  it('logs requests but never the text, PINs or names typed by the user', async () => {
    const phone = new Dialer(ctx.app)
    await phone.dial('2*2')
    for (const input of ['Wairimu Kamande', '00', '80417', '80417']) await phone.send(input)
    await phone.post('x'.repeat(200))
    await ctx.app.inject({ method: 'POST', url: '/api/ussd/events', payload: { sessionId: phone.sessionId, phoneNumber: phone.phoneNumber, input: phone.text, lastAppResponse: 'CON secret 80417', status: 'Success' } })
    await ctx.app.inject({ method: 'POST', url: '/api/ussd/hubtel', payload: { Type: 'Response', Mobile: '233201234567', SessionId: 'h-log', ServiceCode: '713', Message: '80417', Sequence: 2 } })
    const text = logs.text()
    expect(text).toContain('incoming request')
    expect(text).toContain(phone.sessionId)
    expect(text).not.toContain('80417')
    expect(text).not.toContain('Wairimu')
    expect(text).not.toContain('xxxxxxxxxx')
  })
})
