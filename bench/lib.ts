import autocannon from 'autocannon'
import { createServer } from 'node:net'
import { cpus } from 'node:os'

export interface LoadResult { requestsPerSec: number, p50: number, p99: number, errors: number, non2xx: number }

/** Drives `url` with autocannon for `seconds` and returns the numbers the reports print. */
export async function load (options: autocannon.Options): Promise<LoadResult> {
  const result = await autocannon({ connections: 50, duration: 5, ...options })
  return {
    requestsPerSec: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx
  }
}

export const ratio = (value: number, baseline: number) => (baseline === 0 ? 0 : value / baseline)

/** Ratios move from one machine to the next (see the apps' READMEs): the first report of a run says where it ran. */
let machinePrinted = false
function machine (): string {
  const cores = cpus()
  return `machine: ${cores.length} x ${cores[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.version}`
}

export function report (title: string, rows: Array<[string, string | number]>) {
  if (!machinePrinted) {
    machinePrinted = true
    process.stdout.write(`\n${machine()}\n`)
  }
  process.stdout.write(
    `\n${title}\n${rows.map(([k, v]) => `  ${k.padEnd(44)} ${typeof v === 'number' ? v.toFixed(2) : v}`).join('\n')}\n`
  )
}

/** A port free on 127.0.0.1 right now, for a server process the bench starts. */
export async function freePort (): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0))
    })
  })
}
