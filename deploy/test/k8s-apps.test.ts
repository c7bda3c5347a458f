import { describe, expect, it } from 'vitest'
import { buildOutput, isSecretKey, readKeys, requiredIn, schemaRequiredKeys, type AppInfo } from '../src/apps.ts'
import {
  containerEnvSources,
  containersOf,
  find,
  imageRepository,
  mustFind,
  ofKind,
  podLabels,
  podSpecOf,
  resolveEnv,
  selects,
  type EnvSource
} from '../src/kubernetes.ts'
import { stage } from '../src/dockerfile.ts'
import { isObject, type JsonObject } from '../src/yaml.ts'
import { apps, built, dockerfile, k8sSecretValue, OVERLAYS, runtimeImage } from './support.ts'

const appContainer = (workload: JsonObject): JsonObject => {
  const containers = (podSpecOf(workload)?.containers ?? []) as JsonObject[]
  expect(containers).toHaveLength(1)
  return containers[0] as JsonObject
}

interface Probe { httpGet?: { path: string, port: string | number } }

const cases = OVERLAYS.flatMap((overlay) => apps.map((app) => [overlay, app.name, app] as const))

describe.each(cases)('k8s/overlays/%s: %s', (overlay, _name, app: AppInfo) => {
  const resources = built[overlay]
  const deployment = mustFind(resources, 'Deployment', app.name)
  const container = appContainer(deployment)
  const pod = podSpecOf(deployment) as JsonObject
  const sources = containerEnvSources(container, resources)
  const env = () => resolveEnv(sources, k8sSecretValue, runtimeImage(app).env)

  it('starts with every variable its config requires in production (secrets as the generator makes them)', () => {
    const environment = env()
    expect(environment.NODE_ENV).toBe('production')
    expect(() => app.loadConfig(environment)).not.toThrow()
    for (const key of schemaRequiredKeys(app)) expect(environment[key], key).toBeTruthy()
  })

  it('names only variables the app\'s config defines, and every variable the app reads', () => {
    const defined = Object.keys(app.schema.properties)
    for (const name of sources.keys()) {
      expect(defined, `${name} is not in apps/${app.name}/src/config.ts`).toContain(name)
    }
    for (const key of readKeys(app)) {
      expect([...sources.keys()], `${key} (read by ${app.name}) is in no ConfigMap or Secret reference`).toContain(key)
    }
  })

  it('takes credentials from its own Secret only, and never marks a required one optional', () => {
    const environment = env()
    const required = new Set(requiredIn(app, environment))
    for (const [name, source] of sources) {
      if (isSecretKey(name)) {
        expect(source, name).toMatchObject({ kind: 'secret', name: `${app.name}-secrets`, key: name })
      }
      if (source.kind === 'secret') {
        expect(source.name).toBe(`${app.name}-secrets`)
        if (required.has(name)) expect(source.optional, `${name} is required in production`).toBe(false)
      }
    }
    // Several replicas share sessions, rate limits and fan-out through Redis: never optional.
    if (readKeys(app).has('REDIS_URL')) {
      expect(sources.get('REDIS_URL')).toMatchObject({ kind: 'secret', optional: false })
    }
  })

  it('listens on the app\'s port, named http, behind its Service', () => {
    const ports = container.ports as JsonObject[]
    expect(ports).toEqual([
      { name: 'http', containerPort: app.port },
      { name: 'metrics', containerPort: app.port + 1000 }
    ])
    expect(app.loadConfig(env()).PORT).toBe(app.port)
    const service = mustFind(resources, 'Service', app.name)
    const spec = service.spec as JsonObject
    expect(selects(spec.selector as JsonObject, podLabels(deployment))).toBe(true)
    for (const other of ofKind(resources, 'Deployment').filter((d) => d !== deployment)) {
      const otherName = String((other.metadata as JsonObject).name)
      expect(selects(spec.selector as JsonObject, podLabels(other)), `also selects ${otherName}`).toBe(false)
    }
    expect(spec.ports).toEqual([{ name: 'http', port: 80, targetPort: 'http' }])
  })

  it('serves metrics on their own port, announced for scraping and kept off the Service', () => {
    expect(app.loadConfig(env()).METRICS_PORT).toBe(app.port + 1000)
    const annotations = ((deployment.spec as JsonObject).template as JsonObject).metadata as JsonObject
    expect(annotations.annotations).toEqual({
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': String(app.port + 1000),
      'prometheus.io/path': '/metrics'
    })
    const service = mustFind(resources, 'Service', app.name)
    expect(JSON.stringify(service.spec)).not.toContain('metrics')
  })

  it('probes readiness on /health and liveness on /health/live', () => {
    expect((container.readinessProbe as Probe).httpGet).toEqual({ path: '/health', port: 'http' })
    expect((container.livenessProbe as Probe).httpGet).toEqual({ path: '/health/live', port: 'http' })
    expect((container.startupProbe as Probe).httpGet).toEqual({ path: '/health/live', port: 'http' })
  })

  it('runs as a non-root user on a read-only root filesystem, with a writable /tmp', () => {
    const podSecurity = pod.securityContext as JsonObject
    expect(podSecurity.runAsNonRoot).toBe(true)
    // The image's USER is a name (node); only a numeric uid lets the kubelet verify runAsNonRoot.
    expect(runtimeImage(app).user).toBe('node')
    expect(podSecurity.runAsUser).toBe(1000)
    expect(container.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] }
    })
    const tmp = (container.volumeMounts as JsonObject[]).find((mount) => mount.mountPath === '/tmp')
    const volume = (pod.volumes as JsonObject[]).find((candidate) => candidate.name === tmp?.name)
    expect(isObject(volume?.emptyDir)).toBe(true)
    expect(pod.automountServiceAccountToken).toBe(false)
  })

  it('lets endpoints deregister, then drains, well within the termination grace period', () => {
    const command = ((container.lifecycle as JsonObject).preStop as { exec: { command: string[] } }).exec.command
    expect(command[0]).toBe('sleep')
    const preStopMs = Number(command[1]) * 1000
    expect(preStopMs).toBeGreaterThanOrEqual(3000)
    const drainMs = app.loadConfig(env()).SHUTDOWN_GRACE_MS as number
    expect(Number(pod.terminationGracePeriodSeconds) * 1000).toBeGreaterThanOrEqual(preStopMs + drainMs + 5000)
  })

  it('declares resource requests and a memory limit', () => {
    expect(container.resources).toMatchObject({
      requests: { cpu: expect.any(String), memory: expect.any(String) },
      limits: { memory: expect.any(String) }
    })
  })

  it('scales with a HorizontalPodAutoscaler and keeps replicas through disruptions', () => {
    expect((deployment.spec as JsonObject).replicas, 'the autoscaler owns replicas').toBeUndefined()
    const hpa = ofKind(resources, 'HorizontalPodAutoscaler')
      .find((candidate) => ((candidate.spec as JsonObject).scaleTargetRef as JsonObject).name === app.name)
    const spec = hpa?.spec as { minReplicas: number, maxReplicas: number, scaleTargetRef: JsonObject } | undefined
    expect(spec?.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: app.name })
    expect(spec?.minReplicas).toBeLessThanOrEqual(spec?.maxReplicas as number)
    if (overlay === 'prod') expect(spec?.minReplicas).toBeGreaterThanOrEqual(2)
    const pdbs = ofKind(resources, 'PodDisruptionBudget')
      .filter((pdb) => selects((pdb.spec as JsonObject).selector as JsonObject, podLabels(deployment)))
    expect(pdbs).toHaveLength(1)
    expect((pdbs[0]?.spec as JsonObject).maxUnavailable).toBe(1)
  })

  it('runs the image of this app, built from the Dockerfile', () => {
    expect(imageRepository(String(container.image))).toMatch(new RegExp(`(^|/)impact/${app.name}$`))
    expect(stage(dockerfile, 'runtime')).toBeDefined()
    if (overlay === 'prod') expect(String(container.image)).toMatch(/:[\w.-]+$/)
  })
})

const migrationCases = OVERLAYS.flatMap((overlay) =>
  apps.filter((app) => app.hasMigrate).map((app) => [overlay, app.name, app] as const))

describe.each(migrationCases)('k8s/overlays/%s: %s migrations', (overlay, _name, app: AppInfo) => {
  const resources = built[overlay]
  const container = appContainer(mustFind(resources, 'Deployment', app.name))
  const pod = podSpecOf(mustFind(resources, 'Deployment', app.name)) as JsonObject
  const sources = containerEnvSources(container, resources)

  it('has a migration Job that runs the build\'s dist/migrate.js in the same image with the same configuration', () => {
    const job = mustFind(resources, 'Job', `${app.name}-migrate`)
    const jobContainer = appContainer(job)
    expect(jobContainer.image).toBe(container.image)
    expect(jobContainer.command).toBeUndefined()
    expect(jobContainer.args).toEqual(['node', buildOutput(app.name, 'src/migrate.ts')])
    expect(runtimeImage(app).entrypoint).toEqual(['dumb-init', '--'])
    expect(runtimeImage(app).workdir).toBe(`/app/apps/${app.name}`)
    expect(containerEnvSources(jobContainer, resources)).toEqual(sources)
    const jobEnv = resolveEnv(containerEnvSources(jobContainer, resources), k8sSecretValue, runtimeImage(app).env)
    expect(() => app.loadMigrationConfig(jobEnv)).not.toThrow()
    const jobPod = podSpecOf(job) as JsonObject
    expect(jobPod.restartPolicy).toBe('Never')
    expect(jobPod.securityContext).toEqual(pod.securityContext)
    expect(jobContainer.securityContext).toEqual(container.securityContext)
    expect(podLabels(job)['app.kubernetes.io/component']).toBe('migration')
  })
})

describe.each(OVERLAYS)('k8s/overlays/%s', (overlay) => {
  const resources = built[overlay]

  it('references only images the Dockerfile builds (or public database images in dev)', () => {
    const targets = new Set(['chain-dev-node'])
    for (const workload of resources) {
      for (const container of containersOf(workload)) {
        const repository = imageRepository(String(container.image))
        const ours = /(^|\/)impact\/([\w-]+)$/.exec(repository)?.[2]
        if (ours !== undefined) {
          const weBuildIt = apps.some((app) => app.name === ours) ||
            (targets.has(ours) && stage(dockerfile, ours) !== undefined)
          expect(weBuildIt, repository).toBe(true)
          if (overlay === 'prod') {
            expect(ours, 'the development node is never deployed to production').not.toBe('chain-dev-node')
          }
        } else {
          expect(overlay, `${repository} outside the dev overlay`).toBe('dev')
          expect(['postgres', 'redis']).toContain(repository)
        }
      }
    }
  })

  it('keeps every app\'s config in ConfigMaps it generates', () => {
    for (const app of apps) {
      const sources = containerEnvSources(appContainer(mustFind(resources, 'Deployment', app.name)), resources)
      for (const source of sources.values()) {
        if (source.kind === 'configMap') expect(find(resources, 'ConfigMap', source.name)).toBeDefined()
      }
      expect([...sources.values()].filter((s: EnvSource) => s.kind === 'literal')).toEqual([])
    }
  })

  it('gives every app with a database a migration Job', () => {
    for (const app of apps.filter((a) => readKeys(a).has('DATABASE_URL'))) {
      expect(find(resources, 'Job', `${app.name}-migrate`), app.name).toBeDefined()
    }
  })
})
