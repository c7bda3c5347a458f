import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { composeRoutes, ingressBackends, routeMatches } from '../src/ingress.ts'
import { parseNginx, renderTemplate } from '../src/nginx.ts'
import { readRepoFile } from '../src/paths.ts'
import { buildApps } from './running-apps.ts'
import { apps, built, OVERLAYS } from './support.ts'

/** Each app as its own buildApp makes it (in-memory database), to ask it which routes it really serves. */
let running = new Map<string, FastifyInstance>()

beforeAll(async () => { running = await buildApps(apps) }, 60_000)

afterAll(async () => { await Promise.all([...running.values()].map(async (app) => { await app.close() })) })

interface OpenApi {
  paths: Record<string, Record<string, { tags?: string[] }>>
}
const openApi = async (name: string): Promise<OpenApi> =>
  (await (running.get(name) as FastifyInstance).inject({ method: 'GET', url: '/docs/json' })).json()
/** A concrete request path for an OpenAPI path template. */
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, 'x').replace(/(.)\/$/, '$1')

describe.each(apps.map((app) => [app.name] as const))('%s as built', (name) => {
  it('serves the probe paths the manifests use', async () => {
    const app = running.get(name) as FastifyInstance
    expect((await app.inject({ method: 'GET', url: '/health/live' })).statusCode).toBe(200)
    expect([200, 503]).toContain((await app.inject({ method: 'GET', url: '/health' })).statusCode)
  })
})

describe('USSD routes through the ingresses', () => {
  const nginx = parseNginx(
    renderTemplate(readRepoFile('docker', 'nginx', 'templates', 'default.conf.template'), {
      PLATFORM_DOMAIN: 'localhost'
    })
  )
  const ways = [
    ...OVERLAYS.map(
      (overlay) => [`k8s ${overlay}`, ingressBackends(built[overlay]).map((backend) => backend.route)] as const
    ),
    ['compose nginx', composeRoutes(nginx)] as const
  ]

  it.each(ways)('%s: reaches every aggregator route and no operator route', async (_way, routes) => {
    const spec = await openApi('ussd-gateway')
    const ussd = routes.filter((route) => route.app === 'ussd-gateway')
    const reachable = (path: string) => ussd.some((route) => routeMatches(route, path))
    let aggregator = 0
    let operator = 0
    for (const [path, operations] of Object.entries(spec.paths)) {
      const tags = Object.values(operations).flatMap((operation) => operation.tags ?? [])
      if (tags.includes('operator')) {
        operator++
        expect(reachable(concrete(path)), `${path} (operator) must stay internal`).toBe(false)
      } else if (tags.includes('ussd')) {
        aggregator++
        expect(reachable(concrete(path)), `${path} (aggregators)`).toBe(true)
      } else {
        expect(reachable(concrete(path)), `${path} is neither an aggregator route nor public`).toBe(false)
      }
    }
    expect(aggregator).toBeGreaterThanOrEqual(3)
    expect(operator).toBeGreaterThanOrEqual(2)
    for (const route of ussd) {
      const served = await (running.get('ussd-gateway') as FastifyInstance).inject({
        method: 'POST',
        url: route.path,
        payload: {}
      })
      expect(served.statusCode, `${route.path} is a route of the app`).not.toBe(404)
    }
  })
})
