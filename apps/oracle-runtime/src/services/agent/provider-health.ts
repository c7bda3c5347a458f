import { request } from 'undici'

export interface ProviderProbeOptions {
  baseUrl: string
  apiKey?: string | undefined
  /** How long one outcome is reused, so /health polling does not become provider traffic. */
  cacheMs: number
  /** Under the health route's own 2 s limit. */
  timeoutMs?: number
}

const unhealthy = (state: string, message: string) => Object.assign(new Error(message), { healthState: state })

/**
 * The model provider's reachability as a health check: `GET {baseUrl}/models` is the cheapest call
 * OpenAI-compatible APIs share, and a 401/403 there means a bad LLM_API_KEY. Concurrent checks share one probe.
 */
export function createProviderProbe (options: ProviderProbeOptions): () => Promise<void> {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/models`
  let last: { at: number, error: Error | undefined } | undefined
  let pending: Promise<Error | undefined> | undefined

  async function probe (): Promise<Error | undefined> {
    try {
      const response = await request(url, {
        method: 'GET',
        headers: options.apiKey !== undefined ? { authorization: `Bearer ${options.apiKey}` } : {},
        signal: AbortSignal.timeout(options.timeoutMs ?? 1500)
      })
      await response.body.dump()
      const answered = `provider answered ${response.statusCode}`
      if (response.statusCode === 401 || response.statusCode === 403) return unhealthy('unauthorized', answered)
      if (response.statusCode >= 500) return unhealthy('disconnected', answered)
      return undefined
    } catch (error) {
      return unhealthy('disconnected', (error as Error).message)
    }
  }

  return async () => {
    if (last === undefined || Date.now() - last.at >= options.cacheMs) {
      pending ??= probe().finally(() => { pending = undefined })
      last = { at: Date.now(), error: await pending }
    }
    if (last.error !== undefined) throw last.error
  }
}
