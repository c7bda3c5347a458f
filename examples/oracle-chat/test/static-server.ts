import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import { extname, join, normalize, sep } from 'node:path'

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
  '.svg': 'image/svg+xml'
}

/** Serves a built directory on 127.0.0.1 (port 0), as any static host would; unknown paths get index.html. */
export async function serveStatic (dir: string): Promise<{ url: string, close: () => Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname)
    const file = normalize(join(dir, path === '/' ? 'index.html' : path))
    const send = (target: string) => {
      response.writeHead(200, { 'content-type': TYPES[extname(target)] ?? 'application/octet-stream' })
      createReadStream(target).pipe(response)
    }
    if (!file.startsWith(dir + sep) && file !== dir) {
      response.writeHead(403).end()
      return
    }
    stat(file).then(
      (s) => {
        send(s.isFile() ? file : join(dir, 'index.html'))
      },
      () => {
        send(join(dir, 'index.html'))
      }
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => {
          resolve()
        })
      })
    }
  }
}
