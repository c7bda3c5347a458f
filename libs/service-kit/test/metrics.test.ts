import { createServer } from 'node:net'
import { describe, expect, it, onTestFinished } from 'vitest'
import {
  BaseConfigSchema, createApp, listenWithMetrics, loadConfig, metricsOf, MetricsPortInUseError
} from '../src/index.ts'
import { scrapeMetrics, scrapeWhen } from '../src/testing.ts'
import { testAppOptions } from './helper.ts'

async function itemsApp (metricsPort?: number) {
  const base = testAppOptions()
  const app = await createApp({ ...base, config: { ...base.config, METRICS_PORT: metricsPort } })
  onTestFinished(async () => { await app.close() })
  app.get('/items/:id', async (request) => ({ id: (request.params as { id: string }).id }))
  app.get('/fail', async () => { throw new Error('broken') })
  return app
}

async function takenPort (): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  onTestFinished(async () => { await new Promise((resolve) => server.close(resolve)) })
  return (server.address() as { port: number }).port
}

describe('metrics listener', () => {
  it('serves request metrics labelled by route template on its own port', async () => {
    const app = await itemsApp()
    const { address, metricsUrl } = await listenWithMetrics(app, { host: '127.0.0.1', port: 0 })
    expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/)
    expect(new URL(metricsUrl!).port).not.toBe(new URL(address).port)
    await fetch(`${address}/items/42`)
    await fetch(`${address}/items/43`)
    await fetch(`${address}/fail`)
    await fetch(`${address}/wp-admin/setup.php`)

    const scrape = await scrapeWhen(metricsUrl!, 'http_request_duration_seconds', {}, 4)
    expect(scrape.contentType).toContain('text/plain')
    expect(scrape.typeOf('http_request_duration_seconds')).toBe('HISTOGRAM')
    const routes = new Set(scrape.labelSets('http_request_duration_seconds').map((l) => l.route))
    expect(routes).toEqual(new Set(['/items/:id', '/fail', 'unmatched']))
    expect(scrape.value('http_request_duration_seconds', { route: '/items/:id', status_class: '2xx' })).toBe(2)
    expect(scrape.value('http_request_duration_seconds', { route: '/fail', status_class: '5xx' })).toBe(1)
    expect(scrape.value('http_request_duration_seconds', { route: 'unmatched', status_class: '4xx' })).toBe(1)
    expect(scrape.names()).toEqual(expect.arrayContaining([
      'process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds',
      'nodejs_eventloop_lag_p99_seconds', 'nodejs_heap_size_used_bytes'
    ]))
  })

  it('keeps the app port free of /metrics and the metrics port free of the app', async () => {
    const app = await itemsApp()
    const { address, metricsUrl } = await listenWithMetrics(app, { host: '127.0.0.1', port: 0 })
    expect((await fetch(`${address}/metrics`)).status).toBe(404)
    const origin = new URL(metricsUrl!).origin
    expect((await fetch(`${origin}/items/1`)).status).toBe(404)
    expect((await fetch(metricsUrl!, { method: 'POST' })).status).toBe(405)
  })

  it('keeps apps in one process apart: each registry counts its own requests', async () => {
    const one = await itemsApp()
    const two = await itemsApp()
    const first = await listenWithMetrics(one, { host: '127.0.0.1', port: 0 })
    const second = await listenWithMetrics(two, { host: '127.0.0.1', port: 0 })
    await fetch(`${first.address}/items/1`)
    expect((await scrapeWhen(first.metricsUrl!, 'http_request_duration_seconds', {}, 1))
      .value('http_request_duration_seconds', { route: '/items/:id' })).toBe(1)
    const other = await scrapeMetrics(second.metricsUrl!)
    expect(other.value('http_request_duration_seconds', { route: '/items/:id' })).toBe(0)
    // The process metrics describe the one process, in every app's scrape.
    expect(other.value('process_cpu_seconds_total')).toBeGreaterThan(0)
    expect(other.names()).toContain('nodejs_eventloop_lag_seconds')
  })

  it('opens nothing with METRICS_PORT=0', async () => {
    const app = await itemsApp(0)
    const { address, metricsUrl } = await listenWithMetrics(app, { host: '127.0.0.1', port: 0 })
    expect(metricsUrl).toBeUndefined()
    expect(metricsOf(app).enabled).toBe(false)
    expect((await fetch(`${address}/items/1`)).status).toBe(200)
    expect(await metricsOf(app).registry.getSingleMetric('http_request_duration_seconds')).toBeUndefined()
  })

  it('takes the configured METRICS_PORT and stops with the app', async () => {
    const port = await takenPort()
    const free = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: p } = probe.address() as { port: number }
        probe.close(() => { resolve(p) })
      })
    })
    expect(free).not.toBe(port)
    const app = await itemsApp(free)
    const { metricsUrl } = await listenWithMetrics(app, { host: '127.0.0.1', port: 0 })
    expect(metricsUrl).toBe(`http://127.0.0.1:${free}/metrics`)
    await app.close()
    await expect(fetch(metricsUrl!)).rejects.toThrow()
  })

  it('fails with a clear error and closes the app when the port is taken', async () => {
    const port = await takenPort()
    const app = await itemsApp(port)
    const error = await listenWithMetrics(app, { host: '127.0.0.1', port: 0 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(MetricsPortInUseError)
    expect((error as Error).message).toBe(`METRICS_PORT ${port} on 127.0.0.1 is already in use: set METRICS_PORT ` +
      'to a free port, or to 0 to turn metrics off')
    expect(app.server.listening).toBe(false)
  })
})

describe('METRICS_PORT config', () => {
  it('is optional, accepts 0 and names a bad value', () => {
    expect(loadConfig(BaseConfigSchema, {}).METRICS_PORT).toBeUndefined()
    expect(loadConfig(BaseConfigSchema, { METRICS_PORT: '0' }).METRICS_PORT).toBe(0)
    expect(loadConfig(BaseConfigSchema, { METRICS_PORT: '9464' }).METRICS_PORT).toBe(9464)
    expect(() => loadConfig(BaseConfigSchema, { METRICS_PORT: '70000' })).toThrow(/METRICS_PORT/)
    expect(() => loadConfig(BaseConfigSchema, { PORT: '65000' }))
      .toThrow('METRICS_PORT must be set when PORT is above 64535')
    expect(loadConfig(BaseConfigSchema, { PORT: '65000', METRICS_PORT: '0' }).METRICS_PORT).toBe(0)
  })
})
