import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, request, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { renderTemplate } from '../src/nginx.ts'
import { readRepoFile } from '../src/paths.ts'
import { apps } from './support.ts'

/**
 * The local stack's nginx configuration run by a real nginx (where one is installed), in front of stand-in
 * upstreams on 127.0.0.1: the only changes are the listen address and the upstream addresses, which Docker
 * would resolve by service name.
 */
const nginxBinary = spawnSync('nginx', ['-v'], { encoding: 'utf8' }).error === undefined ? 'nginx' : undefined

interface Seen { app: string, url: string, forwardedFor: string | undefined, host: string | undefined }

const freePort = async (): Promise<number> => {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

describe.runIf(nginxBinary !== undefined)('nginx with the local stack configuration', () => {
  const upstreams: Server[] = []
  const seen: Seen[] = []
  let dir: string
  let nginx: ChildProcess
  let port: number

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'impact-nginx-'))
    let config = renderTemplate(readRepoFile('docker', 'nginx', 'templates', 'default.conf.template'), {
      PLATFORM_DOMAIN: 'localhost'
    })
    for (const app of apps) {
      const upstream = createServer((req, res) => {
        seen.push({
          app: app.name,
          url: req.url ?? '',
          forwardedFor: req.headers['x-forwarded-for'] as string | undefined,
          host: req.headers.host
        })
        if (req.url === '/stream') {
          res.writeHead(200, { 'content-type': 'text/event-stream' })
          res.write('event: message\ndata: first\n\n')
          setTimeout(() => { res.end('event: done\ndata: {}\n\n') }, 1500)
          return
        }
        res.setHeader('content-type', 'application/json')
        res.end(JSON.stringify({ app: app.name }))
      })
      upstream.on('upgrade', (req, socket) => {
        seen.push({ app: app.name, url: req.url ?? '', forwardedFor: undefined, host: req.headers.host })
        socket.end('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n')
      })
      await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
      upstreams.push(upstream)
      config = config.replaceAll(
        `http://${app.name}:${app.port}`,
        `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`
      )
    }
    port = await freePort()
    config = config
      .replaceAll('listen 80', `listen 127.0.0.1:${port}`)
      .replaceAll('/etc/nginx/ussd-allowlist.conf', join(dir, 'ussd-allowlist.conf'))
    await writeFile(join(dir, 'ussd-allowlist.conf'), readRepoFile('docker', 'nginx', 'ussd-allowlist.conf'))
    await writeFile(join(dir, 'default.conf'), config)
    await writeFile(
      join(dir, 'nginx.conf'),
      `pid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\nevents {}\n` +
        `http {\n  access_log off;\n  client_body_temp_path ${dir};\n  proxy_temp_path ${dir};\n` +
        `  include ${dir}/default.conf;\n}\n`
    )
    nginx = spawn(nginxBinary as string, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], {
      stdio: 'ignore'
    })
    for (let attempt = 0; attempt < 50; attempt++) {
      const up = await fetch(`http://127.0.0.1:${port}/`).then(() => true, () => false)
      if (up) break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }, 20_000)

  afterAll(async () => {
    if (nginx?.pid !== undefined) {
      nginx.kill('SIGTERM')
      await new Promise((resolve) => nginx.once('exit', resolve))
    }
    await Promise.all(upstreams.map(async (server) => { await new Promise((resolve) => server.close(resolve)) }))
    await rm(dir, { recursive: true, force: true })
  })

  const call = async (host: string, path: string, init: { method?: string; headers?: Record<string, string> } = {}) => {
    return await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, path, method: init.method ?? 'GET', headers: { host, ...init.headers } },
        (res) => {
          let body = ''
          res.on('data', (chunk: Buffer) => {
            body += chunk.toString()
          })
          res.on('end', () => {
            resolve({ status: res.statusCode ?? 0, body })
          })
        }
      )
      req.on('error', reject)
      req.end(init.method === 'POST' ? 'text=' : undefined)
    })
  }

  it('sends each host to its app', async () => {
    for (const [host, app] of [
      ['domains.localhost', 'domain-api'],
      ['oracle.localhost', 'oracle-runtime'],
      ['chain.localhost', 'chain-rest-gateway']
    ]) {
      const answer = await call(host as string, '/health')
      expect(answer.status, host).toBe(200)
      expect(JSON.parse(answer.body)).toEqual({ app })
    }
    expect((await call('elsewhere.example', '/health')).status).toBe(404)
  })

  it('passes the aggregator routes of the USSD host and nothing else', async () => {
    for (const path of ['/api/ussd', '/api/ussd/events', '/api/ussd/hubtel']) {
      const answer = await call('ussd.localhost', path, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' }
      })
      expect(answer.status, path).toBe(200)
      expect(JSON.parse(answer.body)).toEqual({ app: 'ussd-gateway' })
    }
    for (const path of ['/api/ussd/debug/abc', '/api/ussd/sessions', '/simulator', '/docs', '/api/ussdx']) {
      expect((await call('ussd.localhost', path)).status, path).toBe(404)
    }
    expect(
      seen
        .filter((entry) => entry.app === 'ussd-gateway')
        .map((entry) => entry.url)
        .sort()
    ).toEqual(['/api/ussd', '/api/ussd/events', '/api/ussd/hubtel'])
  })

  it('replaces a forged X-Forwarded-For with the real client address and keeps the Host', async () => {
    await call('domains.localhost', '/v1/domains', { headers: { 'x-forwarded-for': '203.0.113.9' } })
    const last = seen.filter((entry) => entry.url === '/v1/domains').at(-1)
    expect(last?.forwardedFor).toBe('127.0.0.1')
    expect(last?.host).toBe('domains.localhost')
  })

  it('delivers an oracle SSE event while the stream is still open', async () => {
    const started = Date.now()
    const firstChunkAt = await new Promise<number>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, path: '/stream', headers: { host: 'oracle.localhost' } },
        (res: IncomingMessage) => {
          res.once('data', () => {
            resolve(Date.now() - started)
          })
          res.resume()
        }
      )
      req.on('error', reject)
      req.end()
    })
    expect(firstChunkAt).toBeLessThan(1000)
  })

  it('upgrades oracle WebSocket connections (socket.io)', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({
        host: '127.0.0.1',
        port,
        path: '/socket.io/?EIO=4&transport=websocket',
        headers: {
          host: 'oracle.localhost',
          connection: 'Upgrade',
          upgrade: 'websocket',
          'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
          'sec-websocket-version': '13'
        }
      })
      req.on('upgrade', (res, socket) => {
        socket.destroy()
        resolve(res.statusCode ?? 0)
      })
      req.on('response', (res) => {
        resolve(res.statusCode ?? 0)
      })
      req.on('error', reject)
      req.end()
    })
    expect(status).toBe(101)
    expect(seen.some((entry) => entry.app === 'oracle-runtime' && entry.url.startsWith('/socket.io/'))).toBe(true)
  })
})
