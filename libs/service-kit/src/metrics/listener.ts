import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Registry } from 'prom-client'
import { MetricsPortError } from './config.ts'

export class MetricsPortInUseError extends MetricsPortError {
  readonly code = 'METRICS_PORT_IN_USE'
  constructor (host: string, port: number, options: { cause: unknown }) {
    super(`METRICS_PORT ${port} on ${host} is already in use: set METRICS_PORT to a free port, ` +
      'or to 0 to turn metrics off', options)
    this.name = 'MetricsPortInUseError'
  }
}

export interface MetricsListener {
  readonly url: string
  close: () => Promise<void>
}

/** A bare HTTP server answering GET /metrics only: no app hooks, auth or docs reach it. */
export async function listenForScrapes (registry: Registry, host: string, port: number): Promise<MetricsListener> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]
    if (path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: metrics are at /metrics\n')
      return
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('Method not allowed\n')
      return
    }
    registry.metrics().then((text) => {
      response.writeHead(200, { 'content-type': registry.contentType })
      response.end(request.method === 'HEAD' ? undefined : text)
    }, () => {
      response.writeHead(503, { 'content-type': 'text/plain' }).end('Metrics could not be collected\n')
    })
  })
  // Scrapers keep connections alive; they must not hold the app's shutdown.
  server.keepAliveTimeout = 5000
  await new Promise<void>((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => {
      reject(error.code === 'EADDRINUSE' ? new MetricsPortInUseError(host, port, { cause: error }) : error)
    }
    server.once('error', failed)
    server.listen({ host, port }, () => {
      server.off('error', failed)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address
  return {
    url: `http://${shown}:${address.port}/metrics`,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => { server.close(() => { resolve() }) })
    }
  }
}
