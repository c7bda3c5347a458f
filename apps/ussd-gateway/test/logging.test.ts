import { describe, expect, it } from 'vitest'
import { captureLogs, freshIdentity } from '@impact/service-kit/testing'
import { Dialer, fileApp, SUPPORT_TOKEN } from './helper.ts'

const gateway = await freshIdentity()

describe('logging', () => {
  const logs = captureLogs()
  const ctx = fileApp({ LOG_LEVEL: 'trace', USSD_PRIVATE_KEY: gateway.key }, { logStream: logs.stream })

  it('logs requests but never the text, PINs, names or keys', async () => {
    const phone = new Dialer(ctx.app)
    await phone.dial('2*2')
    let created = ''
    for (const input of ['Wairimu Kamande', '00', '80417', '80417']) created = (await phone.send(input)).screen
    const customerId = /C[0-9A-F]{8}/.exec(created)?.[0] ?? ''
    const issued = await ctx.app.inject({
      method: 'POST',
      url: `/api/ussd/accounts/${customerId}/pin-reset`,
      headers: { authorization: `Bearer ${SUPPORT_TOKEN}`, 'x-support-agent': 'agent-7' }
    })
    const { temporaryPin } = issued.json()
    await phone.post('x'.repeat(200))
    await ctx.app.inject({
      method: 'POST',
      url: '/api/ussd/events',
      payload: {
        sessionId: phone.sessionId,
        phoneNumber: phone.phoneNumber,
        input: phone.text,
        lastAppResponse: 'CON secret 80417',
        status: 'Success'
      }
    })
    await ctx.app.inject({
      method: 'POST',
      url: '/api/ussd/hubtel',
      payload: {
        Type: 'Response',
        Mobile: '233201234567',
        SessionId: 'h-log',
        ServiceCode: '713',
        Message: '80417',
        Sequence: 2
      }
    })
    // Aggregators that call with GET put the text in the query: its value is left out of the url logged.
    await ctx.app.inject({
      method: 'GET',
      url: `/api/ussd?sessionId=${phone.sessionId}&phoneNumber=%2B254700000001&text=2*1*C0000000*80417`
    })
    await ctx.app.inject({
      method: 'POST',
      url: '/api/ussd?Text=80417&%ZZ=80417',
      payload: { sessionId: 'q-log', serviceCode: '*384*123#', phoneNumber: '+254700000001', text: '' }
    })
    await ctx.app.inject({ method: 'GET', url: '/api/ussd?ussd_string=2*1*C0000000*80417;USERDATA=80417' })
    const text = logs.text()
    expect(text).toContain('incoming request')
    expect(text).toContain(phone.sessionId)
    expect(text).not.toContain('80417')
    expect(text).toMatch(/"customerId":"C[0-9A-F]{8}","agent":"agent-7","msg":"temporary PIN issued"/)
    expect(text).not.toContain(`"${String(temporaryPin)}"`)
    expect(text).not.toContain(SUPPORT_TOKEN)
    expect(text).not.toContain('Wairimu')
    expect(text).not.toContain('xxxxxxxxxx')
    // Neither the gateway's key nor an account's sealed one (records start with their format, v1$).
    expect(text).not.toContain(gateway.key)
    expect(text).not.toContain('v1$')
  })
})
