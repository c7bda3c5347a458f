import { Type } from '@sinclair/typebox'
import { describe, expect, it, onTestFinished } from 'vitest'
import { MAX_JSON_DEPTH } from '@impact/schemas'
import { buildTestApp } from './helper.ts'

const nested = (levels: number): unknown => levels === 0 ? 'leaf' : { next: nested(levels - 1) }

async function appWithRoute () {
  const app = await buildTestApp()
  onTestFinished(async () => { await app.close() })
  app.post('/things/:id', {
    schema: {
      params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
      querystring: Type.Object({ tag: Type.Optional(Type.String()) }),
      body: Type.Object({
        name: Type.String(),
        at: Type.Optional(Type.String({ format: 'date-time' })),
        metadata: Type.Optional(Type.Object({}, { additionalProperties: true }))
      })
    }
  }, async (request) => ({ id: request.params.id, name: request.body.name, at: request.body.at ?? null }))
  return app
}

describe('what validation refuses before any route sees it', () => {
  it('refuses U+0000 in a path parameter, a query value, a body string and a nested key ' +
    'with a 400 naming the place', async () => {
    const app = await appWithRoute()
    const cases = [
      { url: '/things/%00', payload: { name: 'x' }, field: '' },
      { url: '/things/a?tag=b%00', payload: { name: 'x' }, field: '/tag' },
      { url: '/things/a', payload: { name: 'Halima\u0000' }, field: '/name' },
      {
        url: '/things/a',
        payload: { name: 'x', metadata: { stove: { 'serial\u0000': 1 } } },
        field: '/metadata/stove/serial\u0000'
      }
    ]
    for (const { url, payload, field } of cases) {
      const res = await app.inject({ method: 'POST', url, payload })
      expect(res.statusCode, url).toBe(400)
      expect(res.json()).toMatchObject({ statusCode: 400, code: 'FST_ERR_VALIDATION' })
      expect(res.json().details[0].message).toBe('must not contain the character U+0000')
      expect(res.json().details[0].field).toContain(field)
    }
  })

  it(`refuses objects nested deeper than ${MAX_JSON_DEPTH} levels with a 400, and accepts them up to it`, async () => {
    const app = await appWithRoute()
    const payload = `{"name":"x","metadata":${'{"next":'.repeat(5000)}1${'}'.repeat(5000)}}`
    const deep = await app.inject({
      method: 'POST',
      url: '/things/a',
      headers: { 'content-type': 'application/json' },
      payload
    })
    expect(deep.statusCode).toBe(400)
    expect(deep.json().details[0].message).toMatch(/must not nest objects and arrays deeper than 32 levels/)
    const fits = await app.inject({
      method: 'POST',
      url: '/things/a',
      payload: { name: 'x', metadata: nested(MAX_JSON_DEPTH - 1) as object }
    })
    expect(fits.statusCode).toBe(200)
  })

  it('refuses a leap-second timestamp, which Date cannot hold, and keeps accepting RFC 3339 with offsets', async () => {
    const app = await appWithRoute()
    const leap = await app.inject({
      method: 'POST',
      url: '/things/a',
      payload: { name: 'x', at: '2026-12-31T23:59:60Z' }
    })
    expect(leap.statusCode).toBe(400)
    expect(leap.json().details[0]).toMatchObject({ field: 'body/at', message: 'must match format "date-time"' })
    const offset = await app.inject({
      method: 'POST',
      url: '/things/a',
      payload: { name: 'x', at: '2026-12-31T23:59:59+03:00' }
    })
    expect(offset.json()).toEqual({ id: 'a', name: 'x', at: '2026-12-31T23:59:59+03:00' })
  })
})
