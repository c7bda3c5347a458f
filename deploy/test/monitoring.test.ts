import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { metricsOf } from '@impact/service-kit'
import { loadCompose } from '../src/compose.ts'
import { containersOf, mustFind, podLabels, selects } from '../src/kubernetes.ts'
import { readRepoFile, repoPath } from '../src/paths.ts'
import { parsePromql } from '../src/promql.ts'
import { isObject, parseYaml, parseYamlDocuments, type JsonObject } from '../src/yaml.ts'
import { buildApps } from './running-apps.ts'
import { apps, built, OVERLAYS } from './support.ts'

/** Series Prometheus makes itself rather than scraping them from an app. */
const PROMETHEUS_SERIES = new Set(['up'])
const monitoring = (...path: string[]) => readRepoFile('k8s', 'monitoring', ...path)
const kustomization = parseYaml(monitoring('kustomization.yaml'), 'k8s/monitoring/kustomization.yaml')
const podMonitor = parseYaml(monitoring('pod-monitor.yaml'), 'pod-monitor.yaml')
const rules = parseYaml(monitoring('prometheus-rules.yaml'), 'prometheus-rules.yaml')
interface Rule { alert: string, expr: string, for?: string, labels?: { severity?: string } }
const groups = (rules.spec as JsonObject).groups as unknown as Array<{ rules: Rule[] }>
const alerts = groups.flatMap((group) => group.rules)
interface Panel { type: string, title: string, targets?: Array<{ expr: string }> }
const dashboards = new Map(apps.map((app) => [app.name, JSON.parse(monitoring('dashboards', `${app.name}.json`)) as {
  uid: string, panels: Panel[], templating: { list: Array<{ name: string, type: string }> }
}]))

/** The series names each app exposes (a histogram as its _bucket, _sum and _count), asked of the app itself. */
let exposed = new Map<string, Set<string>>()
let running = new Map<string, FastifyInstance>()
beforeAll(async () => {
  running = await buildApps(apps)
  exposed = new Map(await Promise.all([...running].map(async ([name, app]) => {
    const families = await metricsOf(app).registry.getMetricsAsJSON()
    const names = families.flatMap(({ name: family, type }) => String(type) === 'histogram'
      ? [family, `${family}_bucket`, `${family}_sum`, `${family}_count`]
      : [family])
    return [name, new Set(names)] as const
  })))
}, 60_000)
afterAll(async () => { await Promise.all([...running.values()].map(async (app) => { await app.close() })) })

describe('k8s/monitoring', () => {
  it('lists resources and dashboard files that exist and parse', () => {
    for (const file of kustomization.resources as string[]) {
      expect(() => parseYamlDocuments(monitoring(file), file)).not.toThrow()
    }
    const files = (kustomization.configMapGenerator as Array<{ files: string[] }>).flatMap((g) => g.files)
    expect(files.sort()).toEqual(apps.map((app) => `dashboards/${app.name}.json`).sort())
    expect((kustomization.generatorOptions as JsonObject).labels).toMatchObject({ grafana_dashboard: '1' })
  })

  it.each(OVERLAYS)('scrapes every app pod of the %s overlay on its metrics port, labelled by app', (overlay) => {
    const spec = podMonitor.spec as JsonObject
    const endpoints = spec.podMetricsEndpoints as JsonObject[]
    expect(endpoints).toHaveLength(1)
    expect(endpoints[0]).toMatchObject({ port: 'metrics', path: '/metrics' })
    expect(JSON.stringify(endpoints[0]?.relabelings)).toContain('"targetLabel":"app"')
    for (const app of apps) {
      const deployment = mustFind(built[overlay], 'Deployment', app.name)
      expect(selects((spec.selector as JsonObject), podLabels(deployment)), app.name).toBe(true)
      const ports = containersOf(deployment).flatMap((c) => (c.ports ?? []) as JsonObject[])
      expect(ports.map((p) => p.name)).toContain('metrics')
    }
  })

  it('alerts on error ratio, latency, lockouts, webhook backlog, block-height lag and restarts', () => {
    const names = alerts.map((rule) => rule.alert)
    expect(names).toEqual(expect.arrayContaining([
      'ImpactHighErrorRatio', 'ImpactHighLatency', 'UssdPinLockoutSpike', 'DomainWebhookBacklog',
      'ChainBlockHeightLag', 'ImpactPodRestarting'
    ]))
    expect(new Set(names).size).toBe(names.length)
    for (const rule of alerts) {
      expect(['warning', 'critical'], rule.alert).toContain(rule.labels?.severity)
      expect(parsePromql(rule.expr).valid, `${rule.alert}: ${rule.expr}`).toBe(true)
    }
  })

  it('alerts only on series the apps expose (or Prometheus makes)', () => {
    const all = new Set([...exposed.values()].flatMap((names) => [...names]))
    for (const rule of alerts) {
      const { metrics } = parsePromql(rule.expr)
      expect(metrics.length, rule.alert).toBeGreaterThan(0)
      for (const metric of metrics) {
        expect(all.has(metric) || PROMETHEUS_SERIES.has(metric), `${rule.alert} uses ${metric}`).toBe(true)
      }
    }
  })

  it.each(apps.map((app) => [app.name]))('has a dashboard of %s whose queries parse and use its own series', (name) => {
    const dashboard = dashboards.get(name)!
    expect(dashboard.uid).toBe(`impact-${name}`)
    expect(dashboard.templating.list)
      .toContainEqual(expect.objectContaining({ name: 'datasource', type: 'datasource' }))
    const queries = dashboard.panels.flatMap((panel) => panel.targets ?? [])
    expect(queries.length).toBeGreaterThan(8)
    const own = exposed.get(name)!
    for (const { expr } of queries) {
      const parsed = parsePromql(expr)
      expect(parsed.valid, expr).toBe(true)
      for (const metric of parsed.metrics) expect(own.has(metric), `${name} dashboard uses ${metric}`).toBe(true)
    }
  })
})

describe('metrics profile of docker/compose.yaml', () => {
  const { services } = loadCompose(repoPath('docker', 'compose.yaml'))
  const prometheus = parseYaml(readRepoFile('docker', 'monitoring', 'prometheus.yml'), 'prometheus.yml')

  const collector = parseYaml(readRepoFile('docker', 'monitoring', 'otel-collector.yaml'), 'otel-collector.yaml')
  const datasources = parseYaml(readRepoFile('docker', 'monitoring', 'grafana-datasources.yml'), 'datasources')
  const MONITORING = ['prometheus', 'grafana', 'otel-collector', 'jaeger']
  /** `host:port` reached on the compose network: a service of the profile that exposes the port. */
  const reachable = (address: string) => {
    const { hostname, port } = new URL(address.includes('://') ? address : `tcp://${address}`)
    const service = services[hostname] as JsonObject | undefined
    return service?.profiles !== undefined && ((service.expose ?? []) as string[]).includes(port)
  }

  it('runs Prometheus, Grafana, the collector and Jaeger only with --profile metrics, Grafana on loopback only', () => {
    for (const name of MONITORING) expect((services[name] as JsonObject).profiles, name).toEqual(['metrics'])
    expect((services.grafana as JsonObject).ports).toEqual(['127.0.0.1:3300:3000'])
    for (const name of MONITORING.filter((n) => n !== 'grafana')) {
      expect((services[name] as JsonObject).ports, name).toBeUndefined()
    }
  })

  it('passes the apps\' spans through the collector to Jaeger, which Grafana reads beside Prometheus', () => {
    const pipelines = (collector.service as JsonObject).pipelines as Record<string, Record<string, string[]>>
    const traces = pipelines.traces ?? {}
    for (const [kind, ids] of Object.entries(traces)) {
      for (const id of ids) expect(collector[kind] as JsonObject, `${kind} ${id}`).toHaveProperty([id])
    }
    const otlp = ((collector.receivers as JsonObject).otlp as JsonObject).protocols as Record<string, JsonObject>
    expect(otlp.http?.endpoint).toBe('0.0.0.0:4318')
    for (const id of traces.exporters ?? []) {
      const endpoint = String(((collector.exporters as JsonObject)[id] as JsonObject).endpoint)
      expect(reachable(endpoint), `${id} sends to ${endpoint}`).toBe(true)
    }
    const sources = datasources.datasources as Array<{ type: string, url: string }>
    expect(sources.map((source) => source.type).sort()).toEqual(['jaeger', 'prometheus'])
    for (const source of sources) expect(reachable(source.url), source.url).toBe(true)
  })

  it('leaves tracing off by default; the documented collector address turns it on in every app', () => {
    const endpoint = 'http://otel-collector:4318'
    expect(reachable(endpoint)).toBe(true)
    const traced = loadCompose(repoPath('docker', 'compose.yaml'), { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }).services
    for (const app of apps) {
      const plain = (services[app.name] as JsonObject).environment as Record<string, string>
      expect(app.loadConfig({ ...plain, NODE_ENV: 'development' }).OTEL_EXPORTER_OTLP_ENDPOINT).toBeUndefined()
      const environment = (traced[app.name] as JsonObject).environment as Record<string, string>
      expect(app.loadConfig({ ...environment, NODE_ENV: 'development' }).OTEL_EXPORTER_OTLP_ENDPOINT).toBe(endpoint)
    }
  })

  it('scrapes each app on its default metrics port (PORT + 1000), labelled by app like the PodMonitor', () => {
    const jobs = prometheus.scrape_configs as JsonObject[]
    const targets = jobs.flatMap((job) => (job.static_configs as JsonObject[]))
    for (const app of apps) {
      const environment = (services[app.name] as JsonObject).environment as JsonObject
      expect(Number(environment.PORT)).toBe(app.port)
      const target = targets.find((t) => isObject(t.labels) && t.labels.app === app.name)
      expect(target?.targets, app.name).toEqual([`${app.name}:${app.port + 1000}`])
      expect(app.loadConfig({ PORT: String(app.port) }).METRICS_PORT).toBeUndefined()
    }
  })
})
