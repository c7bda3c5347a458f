import { setTimeout as sleep } from 'node:timers/promises'
import type { ServerProcess } from './server-process.ts'

export interface OutageDrillOptions {
  server: ServerProcess
  /** Concurrent clients. */
  workers?: number
  /** One request of the traffic; answers a label for its outcome (e.g. `201`, `503 SERVICE_UNAVAILABLE`). */
  request: () => Promise<string>
  /** Breaks a backing service under the traffic and brings it back. */
  outage: () => Promise<void>
  /** How long the server may take to report healthy again once the outage is over (default 20 s). */
  recoveryMs?: number
}

export interface OutageDrillResult {
  /** Outcome label → how many requests ended so. */
  outcomes: Map<string, number>
  /** Whether `/health` answered 200 again within `recoveryMs` after the outage, without a restart. */
  recovered: boolean
}

/** Drives traffic at a server process while a backing service fails under it, then waits for `/health`. */
export async function runOutageDrill (options: OutageDrillOptions): Promise<OutageDrillResult> {
  const outcomes = new Map<string, number>()
  const stopped = new AbortController()
  const worker = async () => {
    while (!stopped.signal.aborted) {
      let label: string
      try {
        label = await options.request()
      } catch (error) {
        label = `client error: ${(error as Error).message}`
      }
      outcomes.set(label, (outcomes.get(label) ?? 0) + 1)
    }
  }
  const workers = Array.from({ length: options.workers ?? 16 }, worker)
  await sleep(300)
  await options.outage()
  await sleep(300)
  stopped.abort()
  await Promise.all(workers)
  const deadline = Date.now() + (options.recoveryMs ?? 20_000)
  let recovered = false
  while (!recovered && Date.now() < deadline && options.server.exitCode() === undefined) {
    recovered = await fetch(`${options.server.url}/health`).then((res) => res.ok, () => false)
    if (!recovered) await sleep(200)
  }
  return { outcomes, recovered }
}
