import { mustFind, ofKind, podLabels, selects, containersOf, containerPortNumber } from './kubernetes.ts'
import { nginxRoutes, type NginxDirective } from './nginx.ts'
import type { JsonObject } from './yaml.ts'

/** One way in from outside: the first label of the host (ussd, domains, …), a path and how it matches. */
export interface Route { host: string, path: string, match: 'Exact' | 'Prefix', app: string }

export const routeKey = (route: Route): string => `${route.host} ${route.match} ${route.path} → ${route.app}`

/** Does a request path take this route? Kubernetes semantics: Prefix matches whole path segments. */
export function routeMatches (route: Pick<Route, 'path' | 'match'>, path: string): boolean {
  if (route.match === 'Exact') return path === route.path
  const prefix = route.path.replace(/\/+$/, '')
  return prefix === '' || path === prefix || path.startsWith(`${prefix}/`)
}

export interface IngressBackend {
  route: Route
  service: JsonObject
  deployment: JsonObject
  containerPort: number | undefined
}

/** Every Ingress path, followed through its Service to the Deployment and container port it reaches. */
export function ingressBackends (resources: JsonObject[]): IngressBackend[] {
  const out: IngressBackend[] = []
  for (const ingress of ofKind(resources, 'Ingress')) {
    for (const rule of (ingress.spec as JsonObject).rules as JsonObject[]) {
      for (const path of (rule.http as { paths: JsonObject[] }).paths) {
        const backend = (path.backend as { service: { name: string; port: { name?: string; number?: number } } })
          .service
        const service = mustFind(resources, 'Service', backend.name)
        const servicePort = ((service.spec as JsonObject).ports as JsonObject[]).find((port) =>
          backend.port.name !== undefined ? port.name === backend.port.name : port.port === backend.port.number
        )
        const deployments = ofKind(resources, 'Deployment').filter((deployment) =>
          selects((service.spec as JsonObject).selector as JsonObject, podLabels(deployment))
        )
        if (deployments.length !== 1) {
          throw new Error(`Service ${backend.name} selects ${deployments.length} Deployments`)
        }
        const deployment = deployments[0] as JsonObject
        const container = containersOf(deployment)[0] as JsonObject
        const containerPort =
          servicePort === undefined
            ? undefined
            : containerPortNumber(container, servicePort.targetPort as string | number)
        out.push({
          route: {
            host: String(rule.host).split('.')[0] as string,
            path: String(path.path),
            match: path.pathType as 'Exact' | 'Prefix',
            app: String((deployment.metadata as JsonObject).name)
          },
          service,
          deployment,
          containerPort
        })
      }
    }
  }
  return out
}

/** The nginx routes of the local stack, with the compose service each proxies to (answering locations left out). */
export function composeRoutes (config: NginxDirective[]): Array<Route & { upstream: string }> {
  return nginxRoutes(config)
    .filter((route) => route.upstream !== undefined)
    .map((route) => {
      const upstream = new URL(route.upstream as string)
      return {
        host: route.serverName.split('.')[0] as string,
        path: route.path,
        match: route.match,
        app: upstream.hostname,
        upstream: upstream.host
      }
    })
}
