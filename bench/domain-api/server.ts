import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { formatSigner, generateSigner } from '@impact/ucan'
import { freePort } from '../lib.ts'

const root = fileURLToPath(new URL('../../', import.meta.url))

/**
 * Runs domain-api's real entry (src/server.ts) in its own process, as deployed: its own event
 * loop and CPU, so the load generator in this process does not slow it down. Resolves once
 * /health answers (the database is reachable and migrated).
 */
export async function startDomainApi (
  env: Record<string, string>
): Promise<{ url: string, stop: () => Promise<void> }> {
  const port = await freePort()
  // Production requires the registry's own key; the bench makes a fresh one.
  const privateKey = formatSigner(await generateSigner())
  const { DATABASE_URL: _db, REDIS_URL: _redis, ...inherited } = process.env
  const entry = `${root}apps/domain-api/src/server.ts`
  const child: ChildProcess = spawn(process.execPath, ['--conditions=@impact/source', entry], {
    cwd: root,
    env: {
      ...inherited,
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
      DOMAIN_API_PRIVATE_KEY: privateKey,
      ...env
    },
    stdio: ['ignore', 'ignore', 'pipe']
  })
  let errors = ''
  child.stderr?.on('data', (chunk: Buffer) => { errors += chunk.toString() })
  const exited = new Promise<never>((_resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`domain-api exited (${code}): ${errors}`)))
  })
  exited.catch(() => {})
  const url = `http://127.0.0.1:${port}`
  const up = (async () => {
    for (let attempt = 0; attempt < 200; attempt++) {
      try {
        if ((await fetch(`${url}/health`)).ok) return
      } catch {}
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    throw new Error('domain-api did not come up')
  })()
  await Promise.race([up, exited])
  return {
    url,
    stop: async () => {
      if (child.exitCode !== null) return
      const gone = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await gone
    }
  }
}
