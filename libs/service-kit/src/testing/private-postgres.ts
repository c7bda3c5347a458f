import { execFile } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

export interface PrivatePostgres {
  /** Connection URL of its `postgres` database (trust auth). */
  readonly url: string
  /** `pg_ctl stop` in the given mode: `immediate` is a crash as clients see it. */
  stop: (mode?: 'immediate' | 'fast') => Promise<void>
  start: () => Promise<void>
  destroy: () => Promise<void>
}

/** The machine's PostgreSQL server binaries (Debian layout), newest version first. */
function binDir (): string | undefined {
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
  versions.sort((a, b) => Number(b) - Number(a))
  return versions[0] !== undefined ? join(root, versions[0], 'bin') : undefined
}

async function freePort (): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise((resolve) => server.close(resolve))
  return typeof address === 'object' && address !== null ? address.port : 0
}

/**
 * A throw-away PostgreSQL cluster of its own (initdb in a temporary folder), for tests that stop
 * the server itself; the shared test server must keep running for everyone else. Undefined where the
 * machine has no server binaries. As root it runs as the `postgres` user, which PostgreSQL requires.
 */
export async function startPrivatePostgres (): Promise<PrivatePostgres | undefined> {
  const bin = binDir()
  if (bin === undefined) return undefined
  const root = process.getuid?.() === 0
  const dir = mkdtempSync(join(tmpdir(), 'private-pg-'))
  if (root) {
    const uid = Number((await run('id', ['-u', 'postgres'])).stdout)
    const gid = Number((await run('id', ['-g', 'postgres'])).stdout)
    chownSync(dir, uid, gid)
  }
  const as = async (command: string, args: string[]) => {
    await (root ? run('runuser', ['-u', 'postgres', '--', join(bin, command), ...args]) : run(join(bin, command), args))
  }
  const data = join(dir, 'data')
  const port = await freePort()
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`
  await as('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync'])
  const start = async () => { await as('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']) }
  const stop = async (mode: 'immediate' | 'fast' = 'fast') => {
    await as('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop'])
  }
  await start()
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop,
    start,
    destroy: async () => {
      await stop('immediate').catch(() => {})
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
