import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issueGovernance, verifiedDomain, type Governance } from '../governance.ts'
import { ADMIN_KEY, startApp, type TestApp } from '../helper.ts'
import { captureLogs } from '@impact/service-kit/testing'
import { hookedReceiver, registerHook, startReceiver, verifySignature, waitFor } from '../webhook-receiver.ts'

/** Short backoff so outages and retries take milliseconds. */
const FAST = {
  WEBHOOK_POLL_INTERVAL_MS: '20',
  WEBHOOK_RETRY_BASE_MS: '20',
  WEBHOOK_RETRY_MAX_MS: '100',
  WEBHOOK_TIMEOUT_MS: '2000'
}

const logs = captureLogs()
let t: TestApp
let keys: Governance

beforeAll(async () => {
  t = await startApp({ ...FAST, LOG_LEVEL: 'info' }, { logStream: logs.stream })
  keys = await issueGovernance(t)
}, 60_000)
afterAll(async () => { await t?.close() })

const admin = () => t.auth(ADMIN_KEY)

const deliveries = async (hookId: string, query = '', app = t) =>
  (await app.app.inject({
    method: 'GET', url: `/v1/webhooks/${hookId}/deliveries?limit=100${query}`, headers: app.auth(ADMIN_KEY)
  })).json().items as Array<Record<string, any>>

/** The first `count` events of a domain as the feed has them (polled: the feed shows settled writes only). */
async function feedOf (did: string, count: number) {
  const read = async () => {
    const items: Array<Record<string, any>> = []
    let after = ''
    for (;;) {
      const page = (await t.app.inject({ method: 'GET', url: `/v1/events?limit=500${after}`, headers: admin() })).json()
      items.push(...page.items)
      if (!page.hasMore) return items.filter((e) => e.domainDid === did)
      after = `&after=${page.nextCursor}`
    }
  }
  let items = await read()
  await waitFor(async () => (items = await read()).length >= count, `${count} events of ${did}`)
  return items
}

const verifyDomain = async () => await verifiedDomain(t, keys)

describe('POST /v1/webhooks and the hook routes', () => {
  it('registers a hook, returns its secret once, lists, reads and deletes it', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/webhooks',
      headers: admin(),
      payload: { url: 'http://127.0.0.1:9/hooks', events: ['verified', 'rejected'] }
    })
    expect(created.statusCode).toBe(201)
    expect(created.headers['cache-control']).toBe('no-store')
    const hook = created.json()
    expect(hook).toMatchObject({ url: 'http://127.0.0.1:9/hooks', events: ['verified', 'rejected'] })
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/)
    expect(created.headers.location).toBe(`/v1/webhooks/${hook.id}`)

    const read = await t.app.inject({ method: 'GET', url: `/v1/webhooks/${hook.id}`, headers: admin() })
    expect(read.statusCode).toBe(200)
    expect(read.json().secret).toBeUndefined()
    const list = await t.app.inject({ method: 'GET', url: '/v1/webhooks', headers: admin() })
    expect(list.json().items.map((h: { id: string }) => h.id)).toContain(hook.id)
    expect(list.body).not.toContain(hook.secret)

    expect(
      (await t.app.inject({ method: 'DELETE', url: `/v1/webhooks/${hook.id}`, headers: admin() })).statusCode
    ).toBe(204)
    const gone = await t.app.inject({ method: 'GET', url: `/v1/webhooks/${hook.id}`, headers: admin() })
    expect(gone.statusCode).toBe(404)
    expect(gone.json().code).toBe('DOMAIN_WEBHOOK_NOT_FOUND')
    expect(
      (await t.app.inject({ method: 'DELETE', url: `/v1/webhooks/${hook.id}`, headers: admin() })).statusCode
    ).toBe(404)
  })

  it('lets only an admin manage hooks', async () => {
    const payload = { url: 'http://127.0.0.1:9/hooks', events: ['*'] }
    const registrarTry = await t.app.inject({
      method: 'POST',
      url: '/v1/webhooks',
      headers: t.auth(keys.registrar.key),
      payload
    })
    expect(registrarTry.statusCode).toBe(403)
    expect(registrarTry.json().code).toBe('DOMAIN_FORBIDDEN')
    expect((await t.app.inject({ method: 'POST', url: '/v1/webhooks', payload })).statusCode).toBe(401)
    expect(
      (await t.app.inject({ method: 'GET', url: '/v1/webhooks', headers: t.auth(keys.voters[0]!.key) })).statusCode
    ).toBe(403)
  })

  it('refuses malformed hooks with 400', async () => {
    const bad = [
      { url: 'ftp://example.org/x', events: ['*'] },
      { url: 'not a url', events: ['*'] },
      { url: 'https://user:pw@example.org/x', events: ['*'] },
      { url: 'https://example.org/x', events: ['minted'] },
      { url: 'https://example.org/x', events: [] },
      { url: 'https://example.org/x', events: ['*'], secret: 'short' }
    ]
    for (const payload of bad) {
      const res = await t.app.inject({ method: 'POST', url: '/v1/webhooks', headers: admin(), payload })
      expect(res.statusCode, JSON.stringify(payload)).toBe(400)
    }
    const badId = await t.app.inject({ method: 'GET', url: '/v1/webhooks/not-a-uuid/deliveries', headers: admin() })
    expect(badId.statusCode).toBe(400)
  })
})

describe('webhook deliveries', () => {
  it('delivers each event once, signed, with its feed id and body', async () => {
    const { receiver, hook } = await hookedReceiver(t, { events: ['*'] })
    const did = await verifyDomain()
    const events = await feedOf(did, 7)
    expect(events.map((e) => e.event)).toEqual([
      'created',
      'updated',
      'verification_proposed',
      'vote_cast',
      'vote_cast',
      'vote_cast',
      'verified'
    ])
    await waitFor(() => events.every((e) => receiver.eventIds().includes(e.id)), 'every event')
    for (const event of events) {
      const got = receiver.received.filter((r) => r.headers['x-event-id'] === event.id)
      expect(got).toHaveLength(1)
      expect(verifySignature(hook.secret, got[0]!)).toBe(true)
      expect(verifySignature('whsec_another-secret-entirely-000000', got[0]!)).toBe(false)
      expect(got[0]!.headers['x-event-type']).toBe(event.event)
      expect(JSON.parse(got[0]!.body)).toEqual(event)
    }
    const ours = async () => (await deliveries(hook.id)).filter((d) => events.some((e) => e.id === d.eventId))
    await waitFor(
      async () => (await ours()).every((d) => d.status === 'delivered'),
      'the log to record every delivery'
    )
    expect((await ours()).map((d) => [d.status, d.attempts, d.lastStatusCode])).toEqual(
      events.map(() => ['delivered', 1, 204])
    )
  }, 60_000)

  it('delivers only the types a hook asked for', async () => {
    const { receiver } = await hookedReceiver(t, { events: ['verified'] })
    const did = await verifyDomain()
    const verified = (await feedOf(did, 7)).find((e) => e.event === 'verified')!
    await waitFor(() => receiver.eventIds().includes(verified.id), 'the verified event')
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(receiver.received.map((r) => r.headers['x-event-type'])).toEqual(['verified'])
  }, 60_000)

  it('loses nothing while the receiver answers 503 or is down, and each event arrives once after dedupe', async () => {
    const { receiver, hook } = await hookedReceiver(t, { events: ['*'] })
    receiver.setUnavailable(true)
    const first = await verifyDomain()
    await waitFor(() => receiver.refused() >= 10, 'retries against the 503s')
    await receiver.shut()
    const second = await verifyDomain()
    await waitFor(
      async () => (await deliveries(hook.id)).some((d) => d.lastError !== null && d.attempts > 1),
      'failed connections'
    )
    const pending = await deliveries(hook.id, '&status=pending')
    expect(pending.length).toBeGreaterThan(0)
    expect(pending.every((d) => d.nextAttemptAt !== null)).toBe(true)

    receiver.setUnavailable(false)
    await receiver.open()
    const expected = [...await feedOf(first, 7), ...await feedOf(second, 7)].map((e) => e.id)
    expect(expected).toHaveLength(14)
    await waitFor(() => expected.every((id) => receiver.eventIds().includes(id)), 'every event after the outage')
    expect(receiver.eventIds().sort()).toEqual([...expected].sort())
    await waitFor(
      async () => (await deliveries(hook.id)).every((d) => d.status === 'delivered'),
      'the log to catch up'
    )
    const log = await deliveries(hook.id)
    expect(log).toHaveLength(14)
    const retried = log.find((d) => d.attempts > 2)!
    const detail = (
      await t.app.inject({ method: 'GET', url: `/v1/webhooks/${hook.id}/deliveries/${retried.id}`, headers: admin() })
    ).json()
    expect(detail.log.length).toBe(retried.attempts)
    expect(detail.log.at(-1)).toMatchObject({ statusCode: 204, error: null })
    expect(detail.log.slice(0, -1).every((a: { statusCode: number | null }) => a.statusCode !== 204)).toBe(true)
  }, 60_000)

  it('marks a delivery failed after the attempt limit, and redelivers it on request', async () => {
    const limited = await startApp({ ...FAST, WEBHOOK_MAX_ATTEMPTS: '3' })
    const receiver = await startReceiver()
    try {
      const hook = await registerHook(limited, { url: receiver.url, events: ['created'] })
      receiver.setUnavailable(true)
      const owner = await limited.issueKey(['registrar'])
      await limited.createDomain(owner.key)
      const list = async () => await deliveries(hook.id, '', limited)
      await waitFor(async () => (await list())[0]?.status === 'failed', 'the delivery to fail')
      const failed = (await list())[0]!
      expect(failed).toMatchObject({ status: 'failed', attempts: 3, lastStatusCode: 503, nextAttemptAt: null })
      expect(receiver.refused()).toBe(3)

      receiver.setUnavailable(false)
      const redeliver = await limited.app.inject({
        method: 'POST',
        url: `/v1/webhooks/${hook.id}/deliveries/${failed.id}/redeliver`,
        headers: limited.auth(ADMIN_KEY)
      })
      expect(redeliver.statusCode).toBe(202)
      expect(redeliver.json()).toMatchObject({ id: failed.id, status: 'pending', attempts: 0 })
      await waitFor(() => receiver.received.length === 1, 'the redelivery')
      expect(receiver.received[0]!.headers['x-event-id']).toBe(failed.eventId)
      expect(verifySignature(hook.secret, receiver.received[0]!)).toBe(true)

      await waitFor(async () => (await list())[0]?.status === 'delivered', 'the delivery to be logged')
      const again = await limited.app.inject({
        method: 'POST',
        url: `/v1/webhooks/${hook.id}/deliveries/${failed.id}/redeliver`,
        headers: limited.auth(ADMIN_KEY)
      })
      expect(again.statusCode).toBe(202)
      await waitFor(() => receiver.received.length === 2, 'a second redelivery of a delivered event')
      expect(receiver.eventIds()).toEqual([failed.eventId])

      const unknown = await limited.app.inject({
        method: 'POST',
        url: `/v1/webhooks/${hook.id}/deliveries/00000000-0000-4000-8000-000000000000/redeliver`,
        headers: limited.auth(ADMIN_KEY)
      })
      expect(unknown.statusCode).toBe(404)
      expect(unknown.json().code).toBe('DOMAIN_WEBHOOK_DELIVERY_NOT_FOUND')
    } finally {
      await receiver.shut()
      await limited.close()
    }
  }, 60_000)

  it('never writes a secret to the logs', async () => {
    const secret = 'my-own-signing-secret-0123456789'
    const { receiver, hook } = await hookedReceiver(t, { events: ['created'], secret })
    const domain = await t.createDomain(keys.registrar.key)
    const created = (await feedOf(domain.did, 1))[0]!
    await waitFor(() => receiver.eventIds().includes(created.id), 'the created event')
    expect(verifySignature(secret, receiver.received.find((r) => r.headers['x-event-id'] === created.id)!)).toBe(true)
    await t.app.inject({ method: 'DELETE', url: `/v1/webhooks/${hook.id}`, headers: admin() })
    expect(logs.text()).toContain('/v1/webhooks')
    expect(logs.text()).not.toContain(secret)
    expect(logs.text()).not.toContain('whsec_')
  }, 60_000)
})

describe('webhook targets outside development', () => {
  it('refuses loopback and private addresses unless configured to allow them', async () => {
    const strict = await startApp({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' })
    try {
      for (const url of [
        'http://127.0.0.1:8080/x',
        'http://localhost/x',
        'http://10.1.2.3/x',
        'http://[::1]/x',
        'http://169.254.169.254/latest',
        'http://[::ffff:192.168.0.1]/x'
      ]) {
        const res = await strict.app.inject({
          method: 'POST',
          url: '/v1/webhooks',
          headers: strict.auth(ADMIN_KEY),
          payload: { url, events: ['*'] }
        })
        expect(res.statusCode, url).toBe(400)
        expect(res.json().details[0].field).toBe('/url')
      }
      const publicTarget = await strict.app.inject({
        method: 'POST',
        url: '/v1/webhooks',
        headers: strict.auth(ADMIN_KEY),
        payload: { url: 'https://93.184.215.14/hooks', events: ['*'] }
      })
      expect(publicTarget.statusCode).toBe(201)
    } finally {
      await strict.close()
    }
  }, 60_000)
})

describe('webhooks in the OpenAPI document', () => {
  it('lists every webhook route with its errors', async () => {
    const spec = (await t.app.inject({ method: 'GET', url: '/docs/json' })).json()
    expect(Object.keys(spec.paths)).toEqual(
      expect.arrayContaining([
        '/v1/events',
        '/v1/webhooks',
        '/v1/webhooks/{id}',
        '/v1/webhooks/{id}/deliveries',
        '/v1/webhooks/{id}/deliveries/{deliveryId}',
        '/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver'
      ])
    )
    expect(Object.keys(spec.paths['/v1/webhooks'].post.responses)).toEqual(
      expect.arrayContaining(['201', '400', '401', '403'])
    )
    expect(Object.keys(spec.paths['/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver'].post.responses)).toEqual(
      expect.arrayContaining(['202', '404', '409'])
    )
  })
})
