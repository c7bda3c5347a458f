import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { itServesTheBasics } from '@impact/service-kit/testing'
import { createHarness, type Harness } from './support/harness.ts'

describe('oracle-runtime service basics', () => {
  let h: Harness

  beforeAll(async () => { h = await createHarness() })
  afterAll(async () => { await h?.close() })

  itServesTheBasics({
    name: 'oracle-runtime', title: 'Oracle runtime', app: () => h.app, health: { database: 'connected' }
  })

  it('documents the UCAN schemes and the routes that need them', async () => {
    const spec = (await h.app.inject({ method: 'GET', url: '/docs/json' })).json()
    expect(spec.components.securitySchemes.ucanInvocation).toMatchObject({ type: 'http', scheme: 'bearer' })
    expect(spec.components.securitySchemes.ucanDelegation).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'x-ucan-delegation'
    })
    expect(spec.paths['/sessions'].post.security).toEqual([
      { ucanInvocation: [], ucanAuthType: [] },
      { ucanDelegation: [] }
    ])
    expect(spec.paths['/sessions'].post.responses['401'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ErrorBody'
    })
  })
})
