import type { PlatformService } from './errors.ts'
import { badResponse, endpoint, send } from './http.ts'

const DID = /^did:[a-z0-9]+:\S+$/

export interface DidCacheOptions {
  ttlMs: number
  timeoutMs: number
}

/**
 * The DIDs services announce on `GET /` (the audience of the invocations sent to them), one per base
 * URL, kept `ttlMs` so a rotated service key is picked up soon. Concurrent lookups share one request;
 * a failed one is not kept.
 */
export function createDidCache (options: DidCacheOptions) {
  const entries = new Map<string, { did: Promise<string>, expiresAt: number }>()

  async function discover (service: PlatformService, baseUrl: string, signal?: AbortSignal): Promise<string> {
    const answer = await send({
      service, method: 'GET', url: endpoint(baseUrl, '/'), timeoutMs: options.timeoutMs, signal
    })
    const did = (answer.body as { did?: unknown } | undefined)?.did
    if (answer.status !== 200 || typeof did !== 'string' || !DID.test(did)) {
      throw badResponse(service, `${service} does not announce its DID on GET / (status ${answer.status})`)
    }
    return did
  }

  return {
    async get (service: PlatformService, baseUrl: string, signal?: AbortSignal): Promise<string> {
      const cached = entries.get(baseUrl)
      if (cached !== undefined && cached.expiresAt > Date.now()) return await cached.did
      const did = discover(service, baseUrl, signal)
      entries.set(baseUrl, { did, expiresAt: Date.now() + options.ttlMs })
      did.catch(() => { if (entries.get(baseUrl)?.did === did) entries.delete(baseUrl) })
      return await did
    },
    /** Drops a DID the service refused invocations for (its key may have changed). */
    forget (baseUrl: string) {
      entries.delete(baseUrl)
    }
  }
}

export type DidCache = ReturnType<typeof createDidCache>
