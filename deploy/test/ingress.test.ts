import { describe, expect, it } from 'vitest'
import { composeRoutes, ingressBackends, routeKey } from '../src/ingress.ts'
import { mustFind, ofKind, podLabels, selects } from '../src/kubernetes.ts'
import { directives, nginxRoutes, parseNginx, renderTemplate } from '../src/nginx.ts'
import { loadCompose, serviceEnvironment } from '../src/compose.ts'
import { readRepoFile, repoPath } from '../src/paths.ts'
import type { JsonObject } from '../src/yaml.ts'
import { apps, built, byName, OVERLAYS } from './support.ts'

const compose = loadCompose(repoPath('docker', 'compose.yaml'))
const ingressService = compose.services.ingress as JsonObject
const domain = serviceEnvironment(ingressService).PLATFORM_DOMAIN as string
// What the nginx image renders at start: the template with the compose environment substituted.
const nginx = parseNginx(
  renderTemplate(
    readRepoFile('docker', 'nginx', 'templates', 'default.conf.template'),
    serviceEnvironment(ingressService)
  )
)
const allowlist = readRepoFile('docker', 'nginx', 'ussd-allowlist.conf')
const CIDR = /^(\d{1,3}\.){3}\d{1,3}\/\d{1,2}$|^[0-9a-f:]+\/\d{1,3}$/i
const annotations = (resource: JsonObject) =>
  (resource.metadata as { annotations?: Record<string, string> }).annotations ?? {}

describe('nginx ingress of the local stack', () => {
  it('mounts the template and allow-list it is checked from', () => {
    expect(ingressService.volumes).toEqual(
      expect.arrayContaining([
        './nginx/templates:/etc/nginx/templates:ro',
        './nginx/ussd-allowlist.conf:/etc/nginx/ussd-allowlist.conf:ro'
      ])
    )
    expect(String(ingressService.image)).toMatch(/^nginx:/)
  })

  it('proxies each host to its app\'s compose service and port', () => {
    const routes = composeRoutes(nginx)
    expect(new Set(routes.map((route) => route.app))).toEqual(new Set(apps.map((app) => app.name)))
    for (const route of routes) expect(route.upstream).toBe(`${route.app}:${byName(route.app).port}`)
    for (const server of directives(nginx, 'server')) {
      for (const name of directives(server.children, 'server_name').flatMap((d) => d.args)) {
        expect(name === '_' || name.endsWith(`.${domain}`), name).toBe(true)
      }
    }
  })

  it('answers 404 for unknown hosts and for everything else on the USSD host', () => {
    const fallback = directives(nginx, 'server').find((server) =>
      directives(server.children, 'listen').some((d) => d.args.includes('default_server'))
    )
    expect(directives(fallback?.children, 'return')[0]?.args).toEqual(['404'])
    const ussdCatchAll = nginxRoutes(nginx).find(
      (route) => route.serverName.startsWith('ussd.') && route.match === 'Prefix' && route.path === '/'
    )
    expect(ussdCatchAll?.upstream).toBeUndefined()
    expect(directives(ussdCatchAll?.location.children, 'return')[0]?.args).toEqual(['404'])
  })

  it('admits only the listed networks on the USSD routes', () => {
    const lines = allowlist
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'))
    expect(lines.at(-1)).toBe('deny all;')
    for (const line of lines.slice(0, -1)) expect(line).toMatch(/^allow \S+;$/)
    for (const line of lines.slice(0, -1)) expect(line.slice(6, -1)).toMatch(CIDR)
    for (const route of nginxRoutes(nginx).filter(
      (r) => r.serverName.startsWith('ussd.') && r.upstream !== undefined
    )) {
      expect(directives(route.location.children, 'include')[0]?.args, route.path).toEqual([
        '/etc/nginx/ussd-allowlist.conf'
      ])
    }
  })

  it('sets every forwarded header once, at the top level, with a client address that cannot be forged', () => {
    const headers = Object.fromEntries(directives(nginx, 'proxy_set_header').map((d) => [d.args[0], d.args[1]]))
    expect(headers).toMatchObject({
      Host: '$host',
      'X-Forwarded-For': '$remote_addr',
      'X-Forwarded-Proto': '$scheme',
      Upgrade: '$http_upgrade',
      Connection: '$connection_upgrade'
    })
    // nginx drops inherited proxy_set_header in any block that sets its own.
    for (const server of directives(nginx, 'server')) {
      expect(directives(server.children, 'proxy_set_header')).toEqual([])
      for (const location of directives(server.children, 'location')) {
        expect(directives(location.children, 'proxy_set_header')).toEqual([])
      }
    }
    expect(directives(nginx, 'map').find((d) => d.args[0] === '$http_upgrade')?.args[1]).toBe('$connection_upgrade')
    expect(directives(nginx, 'resolver')[0]?.args[0]).toBe('127.0.0.11')
  })

  it('keeps oracle streams open and unbuffered', () => {
    const oracle = nginxRoutes(nginx).filter((route) => route.upstream?.includes('oracle-runtime') === true)
    expect(oracle.length).toBeGreaterThan(0)
    for (const route of oracle) {
      const set = Object.fromEntries((route.location.children ?? []).map((d) => [d.name, d.args.join(' ')]))
      expect(Number.parseInt(set.proxy_read_timeout as string)).toBeGreaterThanOrEqual(3600)
      expect(Number.parseInt(set.proxy_send_timeout as string)).toBeGreaterThanOrEqual(3600)
      expect(set.proxy_buffering).toBe('off')
    }
  })
})

describe.each(OVERLAYS)('k8s/overlays/%s Ingress', (overlay) => {
  const resources = built[overlay]
  const backends = ingressBackends(resources)

  it('routes exactly as the local stack\'s nginx does', () => {
    expect(new Set(backends.map((backend) => routeKey(backend.route)))).toEqual(
      new Set(composeRoutes(nginx).map(routeKey))
    )
  })

  it('reaches each app\'s Service and the container port the app listens on', () => {
    expect(new Set(backends.map((backend) => backend.route.app))).toEqual(new Set(apps.map((app) => app.name)))
    for (const backend of backends) {
      expect(backend.route.host, 'host label names the app').toBe(
        { 'ussd-gateway': 'ussd', 'domain-api': 'domains', 'oracle-runtime': 'oracle', 'chain-rest-gateway': 'chain' }[
          backend.route.app
        ]
      )
      expect(backend.containerPort).toBe(byName(backend.route.app).port)
    }
    for (const ingress of ofKind(resources, 'Ingress')) {
      expect((ingress.spec as JsonObject).ingressClassName).toBe('nginx')
    }
  })

  it('restricts the USSD routes to the aggregators\' networks', () => {
    const ingress = mustFind(resources, 'Ingress', 'ussd-gateway')
    const {
      'nginx.ingress.kubernetes.io/allowlist-source-range': allow,
      'nginx.ingress.kubernetes.io/whitelist-source-range': white
    } = annotations(ingress)
    expect(allow).toBe(white)
    const ranges = String(allow).split(',').map((range) => range.trim())
    for (const range of ranges) expect(range).toMatch(CIDR)
    expect(ranges).not.toContain('0.0.0.0/0')
    expect(ranges).not.toContain('::/0')
    for (const backend of backends.filter((b) => b.route.app === 'ussd-gateway')) {
      expect(backend.route.match).toBe('Exact')
    }
  })

  it('keeps oracle SSE and WebSocket connections open and unbuffered', () => {
    const values = annotations(mustFind(resources, 'Ingress', 'oracle-runtime'))
    expect(Number(values['nginx.ingress.kubernetes.io/proxy-read-timeout'])).toBeGreaterThanOrEqual(3600)
    expect(Number(values['nginx.ingress.kubernetes.io/proxy-send-timeout'])).toBeGreaterThanOrEqual(3600)
    expect(values['nginx.ingress.kubernetes.io/proxy-buffering']).toBe('off')
  })

  if (overlay === 'prod') {
    it('serves every host over TLS', () => {
      for (const ingress of ofKind(resources, 'Ingress')) {
        const spec = ingress.spec as {
          rules: Array<{ host: string }>
          tls?: Array<{ hosts: string[]; secretName: string }>
        }
        expect(spec.tls?.flatMap((tls) => tls.hosts)).toEqual(spec.rules.map((rule) => rule.host))
      }
    })
  }
})

describe.each(OVERLAYS)('k8s/overlays/%s NetworkPolicy', (overlay) => {
  const resources = built[overlay]
  const policies = ofKind(resources, 'NetworkPolicy')
  const policiesFor = (labels: Record<string, string>) =>
    policies.filter(
      (policy) =>
        selects((policy.spec as JsonObject).podSelector as JsonObject, labels) ||
        Object.keys((policy.spec as JsonObject).podSelector as JsonObject).length === 0
    )
  /** Who may connect to pods with `labels`; with `port`, only through rules that open that port (or every port). */
  const peersOf = (labels: Record<string, string>, port?: string) =>
    policiesFor(labels).flatMap((policy) =>
      (((policy.spec as JsonObject).ingress as Array<{ from?: JsonObject[], ports?: JsonObject[] }> | undefined) ?? [])
        .filter((rule) => port === undefined || rule.ports === undefined || rule.ports.some((p) => p.port === port))
        .flatMap((rule) => rule.from ?? [{}])
    )

  it('denies all ingress to the namespace unless a policy allows it', () => {
    expect(
      policies.some(
        (policy) =>
          Object.keys((policy.spec as JsonObject).podSelector as JsonObject).length === 0 &&
          ((policy.spec as JsonObject).policyTypes as string[]).includes('Ingress') &&
          (policy.spec as JsonObject).ingress === undefined
      )
    ).toBe(true)
  })

  it('lets only the ingress controller reach the apps (so the USSD operator routes stay internal)', () => {
    for (const app of apps) {
      const peers = peersOf(podLabels(mustFind(resources, 'Deployment', app.name)), 'http')
      expect(peers.length, app.name).toBeGreaterThan(0)
      for (const peer of peers) {
        expect(peer, app.name).toEqual({
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } }
        })
      }
    }
  })

  it('lets only the monitoring namespace reach the apps\' metrics port, and nothing else', () => {
    for (const app of apps) {
      const labels = podLabels(mustFind(resources, 'Deployment', app.name))
      expect(peersOf(labels, 'metrics'), app.name).toEqual([
        { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }
      ])
      const ports = policiesFor(labels).flatMap((policy) =>
        ((policy.spec as JsonObject).ingress as Array<{ ports?: JsonObject[] }> | undefined ?? [])
          .map((rule) => (rule.ports ?? []).map((p) => p.port)))
      for (const opened of ports) expect(opened.length, `${app.name}: a rule opens every port`).toBeGreaterThan(0)
    }
  })

  it('lets only the apps and their migrations reach the databases', () => {
    const databases = [...ofKind(resources, 'StatefulSet'), ...ofKind(resources, 'Deployment')].filter(
      (workload) => podLabels(workload)['app.kubernetes.io/component'] === 'database'
    )
    expect(databases.length).toBe(overlay === 'dev' ? 2 : 0)
    const allowed = [
      ...apps.map((app) => podLabels(mustFind(resources, 'Deployment', app.name))),
      ...ofKind(resources, 'Job').map(podLabels)
    ]
    const others = [...ofKind(resources, 'Deployment'), ...ofKind(resources, 'StatefulSet')]
      .map(podLabels)
      .filter((labels) => !allowed.includes(labels) && labels['app.kubernetes.io/component'] !== 'app')
    for (const database of databases) {
      const peers = peersOf(podLabels(database))
      expect(peers.length).toBeGreaterThan(0)
      for (const peer of peers) {
        expect(peer.namespaceSelector).toBeUndefined()
        expect(peer.ipBlock).toBeUndefined()
        for (const labels of allowed) expect(selects(peer.podSelector as JsonObject, labels)).toBe(true)
        for (const labels of others) {
          expect(selects(peer.podSelector as JsonObject, labels), JSON.stringify(labels)).toBe(false)
        }
      }
    }
  })
})
