import { connect } from 'node:net'
import { Type } from '@sinclair/typebox'
import { describe, expect, it, onTestFinished } from 'vitest'
import { defineError } from '../src/index.ts'
import { captureLogs } from '../src/testing.ts'
import { buildTestApp } from './helper.ts'

const Teapot = defineError('KIT_TEAPOT', 'I am a teapot named %s', 418)
const Down = defineError('KIT_UPSTREAM_DOWN', 'Upstream unavailable', 503)
const Invalid = defineError('KIT_INVALID_RANGE', 'Invalid range', 400)
const Misconfigured = defineError('KIT_MISCONFIGURED', 'Plugin misconfigured', 500)

async function appWithRoutes (options: Parameters<typeof buildTestApp>[0] = {}) {
  const app = await buildTestApp(options)
  onTestFinished(async () => {
    await app.close()
  })
  app.post(
    '/items',
    {
      schema: {
        body: Type.Object(
          { name: Type.String({ minLength: 1 }), count: Type.Integer() },
          { additionalProperties: false }
        )
      }
    },
    async (request) => ({ received: request.body ?? null })
  )
  app.post('/empty', async (request) => ({ body: request.body ?? null }))
  app.get('/teapot', async () => {
    throw new Teapot('earl')
  })
  app.get('/invalid', async () => {
    throw Object.assign(new Invalid(), { details: [{ field: '/validUntil', message: 'must be after validFrom' }] })
  })
  app.get('/boom', async () => {
    throw new Error('connect ECONNREFUSED 10.0.0.5:5432 password=hunter2')
  })
  app.get('/down', async () => {
    throw new Down()
  })
  // A real refused connection (nothing listens on port 1), thrown as it is and wrapped as a cause.
  const refused = async () =>
    await new Promise<never>((_resolve, reject) => {
      connect(1, '127.0.0.1').once('error', reject)
    })
  app.get('/unreachable', refused)
  app.get('/unreachable-cause', async () => {
    await refused().catch((cause: unknown) => {
      throw new Error('lookup failed', { cause })
    })
  })
  app.get('/coded-cause', async () => {
    await refused().catch((cause: unknown) => {
      throw new Misconfigured({ cause })
    })
  })
  return app
}

describe('error contract', () => {
  it('answers validation failures with 400, the field and the FST_ERR_VALIDATION code', async () => {
    const app = await appWithRoutes()
    const res = await app.inject({ method: 'POST', url: '/items', payload: { name: '', count: 1, extra: true } })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toMatchObject({ statusCode: 400, error: 'Bad Request', code: 'FST_ERR_VALIDATION' })
    expect(res.json().details[0].field).toMatch(/name|extra/)
  })

  it('keeps coded client errors with their message', async () => {
    const app = await appWithRoutes()
    const res = await app.inject({ method: 'GET', url: '/teapot' })
    expect(res.statusCode).toBe(418)
    expect(res.json()).toEqual({
      statusCode: 418,
      error: "I'm a Teapot",
      code: 'KIT_TEAPOT',
      message: 'I am a teapot named earl'
    })
  })

  it('passes the field details of coded client errors', async () => {
    const app = await appWithRoutes()
    const res = await app.inject({ method: 'GET', url: '/invalid' })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      code: 'KIT_INVALID_RANGE',
      message: 'Invalid range',
      details: [{ field: '/validUntil', message: 'must be after validFrom' }]
    })
  })

  it('masks unexpected server errors but logs them', async () => {
    const logs = captureLogs()
    const app = await appWithRoutes({
      config: { NODE_ENV: 'test', LOG_LEVEL: 'error', TRUST_PROXY_ENABLED: false },
      logger: { stream: logs.stream }
    })
    const res = await app.inject({ method: 'GET', url: '/boom' })
    expect(res.statusCode).toBe(500)
    expect(res.json()).toEqual({ statusCode: 500, error: 'Internal Server Error', message: 'Internal Server Error' })
    expect(res.body).not.toContain('ECONNREFUSED')
    expect(logs.text()).toContain('ECONNREFUSED')
  })

  it('keeps the public code and message of coded server errors', async () => {
    const app = await appWithRoutes()
    const res = await app.inject({ method: 'GET', url: '/down' })
    expect(res.statusCode).toBe(503)
    expect(res.json()).toMatchObject({ statusCode: 503, code: 'KIT_UPSTREAM_DOWN', message: 'Upstream unavailable' })
  })

  it('answers 503 SERVICE_UNAVAILABLE when a backing service cannot be reached, and logs the cause', async () => {
    const logs = captureLogs()
    const app = await appWithRoutes({
      config: { NODE_ENV: 'test', LOG_LEVEL: 'error', TRUST_PROXY_ENABLED: false },
      logger: { stream: logs.stream }
    })
    for (const url of ['/unreachable', '/unreachable-cause']) {
      const res = await app.inject({ method: 'GET', url })
      expect(res.statusCode).toBe(503)
      expect(res.json()).toEqual({
        statusCode: 503,
        error: 'Service Unavailable',
        code: 'SERVICE_UNAVAILABLE',
        message: 'A service this request depends on is unavailable; retry later'
      })
    }
    expect(logs.text()).toContain('ECONNREFUSED')
    // A coded error keeps its own status and code, whatever its cause.
    expect((await app.inject({ method: 'GET', url: '/coded-cause' })).json()).toEqual({
      statusCode: 500,
      error: 'Internal Server Error',
      code: 'KIT_MISCONFIGURED',
      message: 'Plugin misconfigured'
    })
  })

  it('answers unknown routes with a JSON 404', async () => {
    const app = await appWithRoutes()
    const res = await app.inject({ method: 'GET', url: '/nope?x=1' })
    expect(res.statusCode).toBe(404)
    expect(res.json()).toEqual({
      statusCode: 404,
      error: 'Not Found',
      code: 'FST_ERR_NOT_FOUND',
      message: 'Route GET:/nope not found'
    })
  })

  it('lets an app answer unknown routes in its own contract and accept long path parameters', async () => {
    const app = await buildTestApp({
      notFoundHandler: async (_request, reply) =>
        await reply.code(404).send({ code: 5, message: 'Not Found', details: [] }),
      maxParamLength: 500
    })
    app.get('/items/:id', async (request) => ({ id: (request.params as { id: string }).id }))
    onTestFinished(async () => {
      await app.close()
    })
    expect((await app.inject({ method: 'GET', url: '/nope' })).json()).toEqual({
      code: 5,
      message: 'Not Found',
      details: []
    })
    const long = 'x'.repeat(300)
    expect((await app.inject({ method: 'GET', url: `/items/${long}` })).json()).toEqual({ id: long })
  })

  it('rejects malformed JSON with a 400 body', async () => {
    const app = await appWithRoutes()
    const res = await app.inject({
      method: 'POST',
      url: '/empty',
      headers: { 'content-type': 'application/json' },
      payload: '{"a":'
    })
    expect(res.statusCode).toBe(400)
    expect(res.json().statusCode).toBe(400)
  })
})

describe('empty JSON bodies', () => {
  it('treats an empty application/json body as no body', async () => {
    const app = await appWithRoutes()
    const res = await app.inject({
      method: 'POST',
      url: '/empty',
      headers: { 'content-type': 'application/json' },
      payload: ''
    })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ body: null })
  })

  it('still refuses prototype poisoning', async () => {
    const app = await appWithRoutes()
    const res = await app.inject({
      method: 'POST',
      url: '/empty',
      headers: { 'content-type': 'application/json' },
      payload: '{"__proto__":{"admin":true}}'
    })
    expect(res.statusCode).toBe(400)
  })
})

describe('request ids', () => {
  it('echoes a valid x-request-id and replaces an unsafe one', async () => {
    const app = await appWithRoutes()
    const kept = await app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'req-123.abc' } })
    expect(kept.headers['x-request-id']).toBe('req-123.abc')
    const replaced = await app.inject({
      method: 'GET',
      url: '/nope',
      headers: { 'x-request-id': 'bad id\r\nInjected: 1' }
    })
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('sends the request id and nosniff on successes, coded errors, crashes, validation failures and 404s', async () => {
    const app = await appWithRoutes()
    const replies = await Promise.all([
      app.inject({ method: 'GET', url: '/health' }),
      app.inject({ method: 'GET', url: '/teapot' }),
      app.inject({ method: 'GET', url: '/boom' }),
      app.inject({ method: 'POST', url: '/items', payload: { name: '' } }),
      app.inject({ method: 'GET', url: '/nope' })
    ])
    expect(replies.map((res) => res.statusCode)).toEqual([200, 418, 500, 400, 404])
    for (const res of replies) {
      expect(res.headers['x-content-type-options']).toBe('nosniff')
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
    }
  })
})

describe('logging', () => {
  it('gives routes pino as Fastify makes it: bound to the request id, silent below the level', async () => {
    const logs = captureLogs()
    const config = { NODE_ENV: 'test', LOG_LEVEL: 'warn', TRUST_PROXY_ENABLED: false } as const
    const app = await buildTestApp({ config, logger: { stream: logs.stream } })
    onTestFinished(async () => { await app.close() })
    app.get('/note', async (request) => {
      request.log.info('quiet')
      request.log.warn({ detail: 1 }, 'loud')
      return { level: request.log.level, child: typeof request.log.child }
    })
    const res = await app.inject({ method: 'GET', url: '/note', headers: { 'x-request-id': 'req-1' } })
    expect(res.json()).toEqual({ level: 'warn', child: 'function' })
    expect(logs.lines().map((line) => line.msg)).toEqual(['loud'])
    expect(logs.lines()[0]).toMatchObject({ reqId: 'req-1', detail: 1, level: 40 })
  })

  it('never writes secret headers or PINs to the log output', async () => {
    const logs = captureLogs()
    const app = await buildTestApp({
      config: { NODE_ENV: 'test', LOG_LEVEL: 'trace', TRUST_PROXY_ENABLED: false },
      logger: { stream: logs.stream }
    })
    onTestFinished(async () => {
      await app.close()
    })
    app.post('/login', async (request) => {
      // A careless handler logging everything it received must still not leak.
      request.log.info({ headers: request.headers, body: request.body }, 'login attempt')
      return { ok: true }
    })
    const secrets = {
      bearer: 'Bearer eyJ-secret-token',
      ucan: 'mAYIEA-ucan-car',
      cookie: 'sid=session-cookie',
      matrix: 'syt_matrix_token',
      pin: '48213'
    }
    const res = await app.inject({
      method: 'POST',
      url: '/login?next=%2Fhome&access_token=qs-token-7f3&Pin=48213;user[pin]=48213&pin%5B%5D=48213',
      headers: {
        authorization: secrets.bearer,
        'x-ucan-delegation': secrets.ucan,
        cookie: secrets.cookie,
        'x-matrix-access-token': secrets.matrix,
        'user-agent': 'kit-test'
      },
      payload: { user: 'amina', pin: secrets.pin }
    })
    expect(res.statusCode).toBe(200)
    const output = logs.text()
    expect(output).toContain('login attempt')
    expect(output).toContain('kit-test')
    for (const secret of [...Object.values(secrets), 'qs-token-7f3']) expect(output).not.toContain(secret)
    expect(output).toContain('[redacted]')
    // Other query parameters stay readable.
    expect(output).toContain(
      '/login?next=%2Fhome&access_token=[redacted]&Pin=[redacted];user[pin]=[redacted]&pin%5B%5D=[redacted]'
    )
  })
})

describe('CORS', () => {
  it('is off unless an origin is configured', async () => {
    const app = await appWithRoutes()
    const res = await app.inject({
      method: 'OPTIONS',
      url: '/items',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' }
    })
    expect(res.headers['access-control-allow-origin']).toBeUndefined()
  })

  it('allows configured origins with credentials and exposes X-Request-Id', async () => {
    const app = await appWithRoutes({
      config: { NODE_ENV: 'test', LOG_LEVEL: 'silent', TRUST_PROXY_ENABLED: false, CORS_ORIGIN: 'https://app.example' },
      cors: { exposedHeaders: ['X-Request-Id'] }
    })
    const ok = await app.inject({ method: 'GET', url: '/health', headers: { origin: 'https://app.example' } })
    expect(ok.headers['access-control-allow-origin']).toBe('https://app.example')
    expect(ok.headers['access-control-allow-credentials']).toBe('true')
    expect(ok.headers['access-control-expose-headers']).toBe('X-Request-Id')
    const other = await app.inject({ method: 'GET', url: '/health', headers: { origin: 'https://evil.example' } })
    expect(other.headers['access-control-allow-origin']).toBeUndefined()
  })

  it('never combines a wildcard with credentials', async () => {
    const app = await appWithRoutes({ cors: { defaultOrigin: '*' } })
    const res = await app.inject({ method: 'GET', url: '/health', headers: { origin: 'https://any.example' } })
    expect(res.headers['access-control-allow-origin']).toBe('*')
    expect(res.headers['access-control-allow-credentials']).toBeUndefined()
  })
})

describe('OpenAPI document', () => {
  it('names shared schemas by their $id', async () => {
    const app = await appWithRoutes()
    app.get('/thing', { schema: { response: { 404: { $ref: 'ErrorBody#' } } } }, async () => ({}))
    const doc = (await app.inject({ method: 'GET', url: '/docs/json' })).json()
    expect(Object.keys(doc.components.schemas)).toContain('ErrorBody')
    expect(JSON.stringify(doc.paths['/thing'])).toContain('#/components/schemas/ErrorBody')
  })
})
