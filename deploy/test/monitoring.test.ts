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

  it('runs Prometheus and Grafana only with --profile metrics, Grafana on loopback only', () => {
    for (const name of ['prometheus', 'grafana']) expect((services[name] as JsonObject).profiles).toEqual(['metrics'])
    expect((services.grafana as JsonObject).ports).toEqual(['127.0.0.1:3300:3000'])
    expect((services.prometheus as JsonObject).ports).toBeUndefined()
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
