import { describe, expect, it } from 'vitest'
import { fileApp } from '../../helper.ts'

const INVALID = 'END Invalid input. Please try again.'
const valid = { sessionId: 'ATUid_valid', serviceCode: '*384*123#', phoneNumber: '+254712345678', text: '' }

describe('POST /api/ussd validation', () => {
  const ctx = fileApp()

  const cases: Array<[string, Record<string, unknown>]> = [
    ['sessionId missing', { sessionId: undefined }],
    ['sessionId empty', { sessionId: '' }],
    ['sessionId over 100 characters', { sessionId: 'x'.repeat(101) }],
    ['sessionId with spaces', { sessionId: 'a b' }],
    ['serviceCode missing', { serviceCode: undefined }],
    ['serviceCode without *', { serviceCode: '384#' }],
    ['serviceCode without #', { serviceCode: '*384' }],
    ['serviceCode with letters', { serviceCode: '*38a#' }],
    ['serviceCode with an empty segment', { serviceCode: '*384**1#' }],
    ['serviceCode *#', { serviceCode: '*#' }],
    ['phoneNumber missing', { phoneNumber: undefined }],
    ['phoneNumber national format', { phoneNumber: '0712345678' }],
    ['phoneNumber with letters', { phoneNumber: '+2547ABC45678' }],
    ['phoneNumber too short', { phoneNumber: '+12345' }],
    ['phoneNumber too long', { phoneNumber: '+1234567890123456' }],
    ['phoneNumber starting +0', { phoneNumber: '+0712345678' }],
    ['text missing', { text: undefined }],
    ['text over 182 characters', { text: '1'.repeat(183) }],
    ['text not a string', { text: { a: 1 } }],
    // The character sessions mask PINs with: typed in, it would match any later input.
    ['text with U+FFFF', { text: '1*\uffff' }],
    // PostgreSQL cannot store it: a name typed with it must not reach the accounts table.
    ['text with U+0000', { text: '2*2*Hal\u0000ima' }]
  ]

  for (const [name, override] of cases) {
    it(`answers ${name} with the invalid-input END text (HTTP 200, text/plain), as JSON and as form`, async () => {
      const body = Object.fromEntries(Object.entries({ ...valid, ...override }).filter(([, v]) => v !== undefined))
      const json = await ctx.app.inject({ method: 'POST', url: '/api/ussd', payload: body })
      expect(json.statusCode).toBe(200)
      expect(json.headers['content-type']).toMatch(/^text\/plain/)
      expect(json.body).toBe(INVALID)
      if (typeof body.text === 'object') return
      const form = await ctx.app.inject({
        method: 'POST',
        url: '/api/ussd',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(body as Record<string, string>).toString()
      })
      expect(form.statusCode).toBe(200)
      expect(form.body).toBe(INVALID)
    })
  }

  it('accepts the service code forms of the spec and deeper ones', async () => {
    for (const serviceCode of ['*384#', '*384*123#', '*384*123*4#']) {
      const payload = { ...valid, sessionId: `ok-${serviceCode.length}`, serviceCode }
      const res = await ctx.app.inject({ method: 'POST', url: '/api/ussd', payload })
      expect(res.body).toMatch(/^CON Welcome/)
    }
  })

  it('accepts a + sent unencoded in a form body (decoded as a space) and unknown extra fields', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/ussd',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'sessionId=plus-raw&serviceCode=*384%23&phoneNumber=+254712345678&text=&networkCode=99999&hopsCount=1'
    })
    expect(res.body).toMatch(/^CON Welcome/)
  })

  it.each([
    ['malformed JSON', 'application/json', '{"sessionId":'],
    ['a JSON array', 'application/json', '[]'],
    ['an empty JSON body', 'application/json', ''],
    ['an unsupported media type', 'text/plain', 'sessionId=x'],
    ['an oversized form body', 'application/x-www-form-urlencoded', `sessionId=x&text=${'1'.repeat(20_000)}`]
  ])('answers %s with the invalid-input END text, never JSON', async (_name, type, payload) => {
    const res = await ctx.app.inject({ method: 'POST', url: '/api/ussd', headers: { 'content-type': type }, payload })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(/^text\/plain/)
    expect(res.body).toBe(INVALID)
  })

  it('never answers CORS preflights on the aggregator route', async () => {
    const headers = { origin: 'https://evil.example', 'access-control-request-method': 'POST' }
    const res = await ctx.app.inject({ method: 'OPTIONS', url: '/api/ussd', headers })
    expect(res.headers['access-control-allow-origin']).toBeUndefined()
  })
})
