import { Credentials, type AuthArtifacts } from './credentials/credentials.ts'
import { readUcanExpiry } from './credentials/ucan-expiry.ts'
import { isDelegationReport, OracleNetworkError, OracleRequestError } from './errors.ts'

export interface TransportOptions {
  baseUrl: string
  credentials: Credentials
  fetch?: typeof fetch | undefined
  /** IANA zone sent as `x-timezone` (default: the runtime's own). */
  timezone?: string | undefined
  /** Extra headers on every authenticated request (`x-matrix-access-token`, `x-matrix-homeserver`, …). */
  headers?: Record<string, string> | (() => Record<string, string>) | undefined
  /** Time limit of JSON requests (default 30 s). Streams have an idle limit instead. */
  timeoutMs?: number | undefined
  onPaymentRequired?: ((claimIds: string[]) => void) | undefined
  onDelegationRefreshed?: (() => void) | undefined
}

export interface RequestOptions {
  body?: unknown
  query?: Record<string, string | number | undefined>
  signal?: AbortSignal | undefined
  timeoutMs?: number | undefined
  accept?: string
  /** Re-mint and retry once when the oracle refuses the credentials (default true). */
  retry?: boolean
  /** Public routes: no credentials are minted or sent. */
  anonymous?: boolean
}

const PROMPTS_KEPT = 100

const defaultZone = (): string | undefined => {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone
  } catch {
    return undefined
  }
}

/**
 * HTTP to one oracle: URLs, headers, credentials, error bodies, and the two recoveries the wire
 * contract expects of a client: a refused invocation is re-minted and the request retried once; a
 * report that the delegation is missing or expired gets a freshly minted delegation stored with
 * `POST /delegation`, then the request is retried once. Payment-required answers reach
 * `onPaymentRequired` with their claim ids. Tokens are never put into errors or logs.
 */
export class Transport {
  readonly baseUrl: string
  readonly credentials: Credentials
  readonly #options: TransportOptions
  readonly #fetch: typeof fetch
  readonly #timezone: string | undefined
  #refreshing: Promise<void> | undefined
  /** Re-authorisation prompts answered lately (session, request, time), oldest first. */
  readonly #prompts: string[] = []

  constructor (options: TransportOptions) {
    this.#options = options
    this.baseUrl = options.baseUrl.replace(/\/+$/, '')
    this.credentials = options.credentials
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis)
    this.#timezone = options.timezone ?? defaultZone()
  }

  get timezone (): string | undefined {
    return this.#timezone
  }

  url (path: string, query?: Record<string, string | number | undefined>): string {
    const params = new URLSearchParams()
    for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) params.set(key, String(value))
    const search = params.toString()
    return `${this.baseUrl}${path}${search === '' ? '' : `?${search}`}`
  }

  /** A JSON request; resolves with the parsed body of a 2xx answer, throws OracleRequestError otherwise. */
  async json<T> (method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const timeoutMs = options.timeoutMs ?? this.#options.timeoutMs ?? 30_000
    const timeout = AbortSignal.timeout(timeoutMs)
    const signal = options.signal === undefined ? timeout : AbortSignal.any([options.signal, timeout])
    const response = await this.send(method, path, { ...options, signal })
    let text: string
    try {
      text = await response.text()
    } catch (error) {
      throw this.#readFailure(error, options.signal, timeoutMs)
    }
    try {
      return JSON.parse(text) as T
    } catch {
      throw new OracleRequestError(
        `The oracle answered ${method} ${path} with a body that is not JSON`,
        response.status,
        {}
      )
    }
  }

  /** Sends a request and returns the 2xx Response unread (streams); the same recoveries as `json`. */
  async send (method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    return await this.#send(method, path, options, options.retry === false ? 1 : 0)
  }

  async #send (method: string, path: string, options: RequestOptions, attempt: number): Promise<Response> {
    const artifacts = options.anonymous === true ? undefined : await this.credentials.artifacts()
    const headers: Record<string, string> = { accept: options.accept ?? 'application/json' }
    if (artifacts !== undefined) {
      const extra = typeof this.#options.headers === 'function' ? this.#options.headers() : this.#options.headers
      Object.assign(headers, extra, Credentials.headersOf(artifacts))
      if (this.#timezone !== undefined) headers['x-timezone'] = this.#timezone
    }
    if (options.body !== undefined) headers['content-type'] = 'application/json'
    let response: Response
    try {
      response = await this.#fetch(this.url(path, options.query), {
        method,
        headers,
        ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
        ...(options.signal !== undefined ? { signal: options.signal } : {})
      })
    } catch (error) {
      throw this.#readFailure(error, options.signal)
    }
    if (response.ok) return response
    const error = await OracleRequestError.fromResponse(response)
    if (attempt === 0 && artifacts !== undefined && (await this.#recover(error, artifacts))) {
      return await this.#send(method, path, options, 1)
    }
    if (error.claimIds !== undefined) this.#options.onPaymentRequired?.(error.claimIds)
    throw error
  }

  /** Whether the refusal was about our credentials and fresh ones are now in place. */
  async #recover (error: OracleRequestError, used: AuthArtifacts): Promise<boolean> {
    if (isDelegationReport(error.body)) {
      await this.refreshDelegation(used.delegation)
      return true
    }
    if (error.status === 401 && error.code === 'UCAN_INVALID_INVOCATION' && used.invocation !== undefined) {
      this.credentials.invalidate('invocation', used.invocation)
      return true
    }
    return false
  }

  /**
   * Answers the oracle's re-authorisation prompt with a fresh delegation, once per prompt: the same prompt
   * arrives on the turn's stream and on the session's socket (which alone carries it for a resumed turn).
   */
  async answerDelegationPrompt (prompt: { sessionId?: unknown, requestId?: unknown, timestamp?: unknown }) {
    const { sessionId, requestId, timestamp } = prompt
    if (typeof sessionId === 'string' && typeof requestId === 'string' && typeof timestamp === 'string') {
      const key = `${sessionId}\0${requestId}\0${timestamp}`
      if (this.#prompts.includes(key)) return
      this.#prompts.push(key)
      if (this.#prompts.length > PROMPTS_KEPT) this.#prompts.shift()
    }
    await this.refreshDelegation()
  }

  /**
   * Mints a fresh delegation and stores it with `POST /delegation` (one at a time: concurrent
   * reports share the refresh). `stale` is the token the oracle refused, when known.
   */
  async refreshDelegation (stale?: string): Promise<void> {
    this.#refreshing ??= (async () => {
      this.credentials.invalidate('delegation', stale)
      await this.storeDelegation()
      this.#options.onDelegationRefreshed?.()
    })().finally(() => { this.#refreshing = undefined })
    await this.#refreshing
  }

  /** Stores the current (cached or freshly minted) delegation with the oracle. */
  async storeDelegation (): Promise<{ ok: true, expiration: number }> {
    const raw = await this.credentials.get('delegation')
    const expiration = readUcanExpiry(raw)
    const body = {
      raw,
      issuer: this.credentials.userDid,
      audience: this.credentials.oracleDid,
      ...(expiration !== undefined && Number.isFinite(expiration) ? { expiration } : {})
    }
    return await this.json('POST', '/delegation', { body, retry: false })
  }

  #readFailure (error: unknown, signal: AbortSignal | undefined, timeoutMs?: number): Error {
    if (error instanceof OracleRequestError) return error
    // The caller's own abort stays an AbortError, as fetch reports it.
    if (signal?.aborted === true && (error as Error | undefined)?.name === 'AbortError') return error as Error
    if ((error as Error | undefined)?.name === 'TimeoutError') {
      return new OracleNetworkError(
        `The oracle did not answer within ${timeoutMs ?? this.#options.timeoutMs ?? 30_000} ms`,
        error
      )
    }
    return new OracleNetworkError(`Could not reach the oracle at ${this.baseUrl}`, error)
  }
}
