import type {
  AbortReply, Attachment, ChatSession, DelegationStatus, HistoryPage, LegacyHistory, ModelList, RevokeReply,
  SendMessage, SendMessageReply, SessionDeleted, SessionList, StoreDelegationReply, ToolApproval, UserPreferences
} from '@impact/schemas'
import { CredentialCache, Credentials, type MintCallback } from './credentials/credentials.ts'
import { OracleNetworkError, OracleRequestError } from './errors.ts'
import type { OracleEventListener } from './events.ts'
import { OracleSocket, type SocketOptions } from './socket.ts'
import { MessageStream } from './stream.ts'
import { declareActions, declareTools, type AnyAgAction, type AnyBrowserTool } from './tools.ts'
import { Transport } from './transport.ts'

export interface OracleClientOptions {
  /** May include a path prefix. */
  baseUrl: string
  wsUrl?: string | undefined
  /** The audience of every credential; `OracleClient.discover(baseUrl)` reads it. */
  oracleDid: string
  /** Half of the credential cache key. */
  userDid: string
  /** Required: the oracle needs the delegation for auth or downstream calls. */
  createDelegation: MintCallback
  /** Without it the client stays on delegation-only auth. */
  createInvocation?: MintCallback | undefined
  /** Shares credentials between clients of the same user. */
  credentialCache?: CredentialCache | undefined
  invocationMarginSeconds?: number | undefined
  delegationMarginSeconds?: number | undefined
  onPaymentRequired?: ((claimIds: string[]) => void) | undefined
  onDelegationRefreshed?: (() => void) | undefined
  fetch?: typeof fetch | undefined
  timezone?: string | undefined
  /** Sent as `x-matrix-access-token` / `x-matrix-homeserver`. */
  matrix?: { accessToken?: string, homeServer?: string } | undefined
  /** Default 30 s; non-stream messages get `messageTimeoutMs` (default 120 s). */
  timeoutMs?: number | undefined
  messageTimeoutMs?: number | undefined
  /** Default 60 s; servers send heartbeats, so silence means a dead stream. */
  streamIdleTimeoutMs?: number | undefined
  now?: (() => number) | undefined
}

export type MessageInput = Omit<SendMessage, 'stream' | 'tools' | 'agActions' | 'attachments'> & {
  browserTools?: readonly AnyBrowserTool[]
  agActions?: readonly AnyAgAction[]
  attachments?: Attachment[]
}

export interface StreamOptions {
  signal?: AbortSignal | undefined
  onEvent?: OracleEventListener | undefined
  /** Answer it with `approve`. */
  onApprovalRequest?: ((approval: ToolApproval) => void) | undefined
}

const segment = (value: string) => encodeURIComponent(value)
/** Matches the runtime's page limits. */
const pageLimit = (limit: number | undefined) => Math.min(100, Math.max(1, Math.floor(limit ?? 20)))

/** Credentials come from the app's callbacks, cached per (user, oracle) until shortly before they expire. */
export class OracleClient {
  readonly baseUrl: string
  readonly wsUrl: string
  readonly oracleDid: string
  readonly userDid: string
  readonly transport: Transport
  readonly #options: OracleClientOptions

  constructor (options: OracleClientOptions) {
    if (typeof options.createDelegation !== 'function') {
      throw new TypeError('createDelegation is required: ' +
        'the oracle authenticates the user by a UCAN delegation or invocation')
    }
    this.#options = options
    this.oracleDid = options.oracleDid
    this.userDid = options.userDid
    const credentials = new Credentials({
      userDid: options.userDid,
      oracleDid: options.oracleDid,
      createDelegation: options.createDelegation,
      createInvocation: options.createInvocation,
      cache: options.credentialCache,
      invocationMarginSeconds: options.invocationMarginSeconds,
      delegationMarginSeconds: options.delegationMarginSeconds,
      now: options.now
    })
    const matrix: Record<string, string> = {}
    if (options.matrix?.accessToken !== undefined) matrix['x-matrix-access-token'] = options.matrix.accessToken
    if (options.matrix?.homeServer !== undefined) matrix['x-matrix-homeserver'] = options.matrix.homeServer
    this.transport = new Transport({
      baseUrl: options.baseUrl,
      credentials,
      fetch: options.fetch,
      timezone: options.timezone,
      headers: matrix,
      timeoutMs: options.timeoutMs,
      onPaymentRequired: options.onPaymentRequired,
      onDelegationRefreshed: options.onDelegationRefreshed
    })
    this.baseUrl = this.transport.baseUrl
    this.wsUrl = (options.wsUrl ?? this.baseUrl).replace(/\/+$/, '')
  }

  static async discover (
    baseUrl: string,
    options: { fetch?: typeof fetch, signal?: AbortSignal } = {}
  ): Promise<{ oracleDid: string, status: string, message: string, timestamp: string }> {
    const url = `${baseUrl.replace(/\/+$/, '')}/`
    const signal = options.signal ?? AbortSignal.timeout(10_000)
    let response: Response
    try {
      response = await (options.fetch ?? globalThis.fetch)(url, { headers: { accept: 'application/json' }, signal })
    } catch (error) {
      if (options.signal?.aborted === true) throw error
      throw new OracleNetworkError(`Could not reach the oracle at ${url}`, error)
    }
    if (!response.ok) throw await OracleRequestError.fromResponse(response)
    const landing = await response.json() as { oracleDid?: unknown, status: string, message: string, timestamp: string }
    if (typeof landing.oracleDid !== 'string') {
      throw new OracleRequestError('The oracle does not announce its DID at GET /', response.status, {})
    }
    return landing as { oracleDid: string, status: string, message: string, timestamp: string }
  }

  get usesInvocation (): boolean {
    return this.transport.credentials.usesInvocation
  }

  async listModels (signal?: AbortSignal): Promise<ModelList> {
    return await this.transport.json('GET', '/models', { anonymous: true, signal })
  }

  // ── sessions ──

  async createSession (signal?: AbortSignal): Promise<ChatSession> {
    return await this.transport.json('POST', '/sessions', { signal })
  }

  async listSessions (page: { limit?: number, offset?: number } = {}, signal?: AbortSignal): Promise<SessionList> {
    const query = { limit: pageLimit(page.limit), offset: Math.max(0, page.offset ?? 0) }
    const list = await this.transport.json<Partial<SessionList>>('GET', '/sessions', { query, signal })
    return { sessions: list.sessions ?? [], total: typeof list.total === 'number' ? list.total : 0 }
  }

  /** Pages the way the SDK does: the next offset is the number of sessions fetched so far. */
  async * sessionPages (options: { pageSize?: number, signal?: AbortSignal } = {}): AsyncGenerator<SessionList> {
    let offset = 0
    for (;;) {
      const page = await this.listSessions({ limit: options.pageSize ?? 20, offset }, options.signal)
      if (page.sessions.length === 0) return
      yield page
      offset += page.sessions.length
      if (offset >= page.total) return
    }
  }

  async deleteSession (sessionId: string, signal?: AbortSignal): Promise<SessionDeleted> {
    return await this.transport.json('DELETE', `/sessions/${segment(sessionId)}`, { signal })
  }

  // ── messages ──

  #body (input: MessageInput): Omit<SendMessage, 'stream'> {
    const { browserTools, agActions, ...rest } = input
    const timezone = rest.timezone ?? this.transport.timezone
    return {
      ...rest,
      ...(timezone !== undefined ? { timezone } : {}),
      ...(browserTools !== undefined && browserTools.length > 0 ? { tools: declareTools(browserTools) } : {}),
      ...(agActions !== undefined && agActions.length > 0 ? { agActions: declareActions(agActions) } : {})
    }
  }

  async sendMessage (sessionId: string, input: MessageInput, signal?: AbortSignal): Promise<SendMessageReply> {
    return await this.transport.json('POST', `/messages/${segment(sessionId)}`, {
      body: { ...this.#body(input), stream: false },
      signal,
      timeoutMs: this.#options.messageTimeoutMs ?? 120_000
    })
  }

  /** Resolves once the stream is open, so errors before that (payment, unknown session) reject here. */
  async streamMessage (sessionId: string, input: MessageInput, options: StreamOptions = {}): Promise<MessageStream> {
    const controller = new AbortController()
    const { signal } = options
    if (signal?.aborted === true) throw signal.reason
    const onAbort = () => { controller.abort() }
    signal?.addEventListener('abort', onAbort, { once: true })
    let response: Response
    try {
      response = await this.transport.send('POST', `/messages/${segment(sessionId)}`, {
        body: { ...this.#body(input), stream: true },
        signal: controller.signal,
        accept: 'text/event-stream'
      })
    } finally {
      signal?.removeEventListener('abort', onAbort)
    }
    const requestId = response.headers.get('x-request-id')
    const isEventStream = (response.headers.get('content-type') ?? '').startsWith('text/event-stream')
    if (!isEventStream || requestId === null || requestId === '') {
      controller.abort()
      const problem = requestId === null
        ? 'Did not receive a request ID'
        : 'The oracle did not answer with an event stream'
      throw new OracleRequestError(problem, response.status, {})
    }
    const stream = new MessageStream(response, {
      sessionId,
      requestId,
      controller,
      onEvent: options.onEvent,
      hooks: {
        abortOnServer: async () => { await this.abort(sessionId) },
        onDelegationReport: (report) => { this.transport.answerDelegationPrompt(report).catch(() => {}) },
        idleTimeoutMs: this.#options.streamIdleTimeoutMs ?? 60_000,
        abortGraceMs: 2000,
        onApprovalRequest: options.onApprovalRequest
      }
    })
    if (signal !== undefined) {
      const stop = () => { stream.abort().catch(() => {}) }
      signal.addEventListener('abort', stop, { once: true })
      stream.done.then(() => { signal.removeEventListener('abort', stop) }, () => {})
    }
    return stream
  }

  /** A second answer rejects with 409; another user's or an unknown call with 404. */
  async approve (
    toolCallId: string,
    decision: { sessionId: string, approved: boolean, reason?: string | undefined },
    signal?: AbortSignal
  ): Promise<ToolApproval> {
    const { sessionId, approved, reason } = decision
    return await this.transport.json('POST', `/approvals/${segment(toolCallId)}`, {
      body: { sessionId, approved, ...(reason !== undefined && reason !== '' ? { reason } : {}) },
      signal
    })
  }

  async abort (sessionId: string, signal?: AbortSignal): Promise<AbortReply> {
    return await this.transport.json('POST', '/messages/abort', { body: { sessionId }, signal, timeoutMs: 5000 })
  }

  // ── history ──

  /** Servers without the paged route get the legacy transcript as one page (empty with a cursor). */
  async getHistory (
    sessionId: string,
    page: { limit?: number, before?: string, after?: string } = {},
    signal?: AbortSignal
  ): Promise<HistoryPage> {
    try {
      const query = { limit: pageLimit(page.limit), before: page.before, after: page.after }
      return await this.transport.json('GET', `/sessions/${segment(sessionId)}/messages`, { query, signal })
    } catch (error) {
      const noPagedRoute = error instanceof OracleRequestError && (error.status === 404 || error.status === 405) &&
        error.code !== 'ORACLE_SESSION_NOT_FOUND'
      if (!noPagedRoute) throw error
      const empty: HistoryPage = { messages: [], prevCursor: null, nextCursor: null, hasOlder: false, hasNewer: false }
      if (page.before !== undefined || page.after !== undefined) return empty
      return { ...empty, messages: (await this.getLegacyHistory(sessionId, signal)).messages }
    }
  }

  async getNewerHistory (
    sessionId: string,
    cursor: string | null,
    options: { limit?: number, signal?: AbortSignal } = {}
  ): Promise<HistoryPage> {
    const messages: HistoryPage['messages'] = []
    const after = cursor !== null ? { after: cursor } : {}
    let page = await this.getHistory(sessionId, { limit: options.limit ?? 20, ...after }, options.signal)
    const first = page
    messages.push(...page.messages)
    for (let rounds = 0; page.hasNewer && page.nextCursor !== null && rounds < 100; rounds++) {
      page = await this.getHistory(sessionId, { limit: options.limit ?? 20, after: page.nextCursor }, options.signal)
      messages.push(...page.messages)
    }
    return {
      messages,
      prevCursor: first.prevCursor,
      nextCursor: page.nextCursor ?? cursor,
      hasOlder: first.hasOlder,
      hasNewer: false,
      ...(page.pendingApprovals !== undefined ? { pendingApprovals: page.pendingApprovals } : {})
    }
  }

  async getLegacyHistory (sessionId: string, signal?: AbortSignal): Promise<LegacyHistory> {
    return await this.transport.json('GET', `/messages/${segment(sessionId)}`, { signal })
  }

  // ── delegation and preferences ──

  async storeDelegation (): Promise<StoreDelegationReply> {
    return await this.transport.storeDelegation()
  }

  async getDelegationStatus (signal?: AbortSignal): Promise<DelegationStatus> {
    return await this.transport.json('GET', '/delegation', { signal })
  }

  /** The cached delegation is dropped too. */
  async revokeDelegation (signal?: AbortSignal): Promise<RevokeReply> {
    const reply: RevokeReply = await this.transport.json('DELETE', '/delegation', { signal })
    this.transport.credentials.invalidate('delegation')
    return reply
  }

  async ensureDelegation (minSeconds = 3600): Promise<DelegationStatus> {
    const status = await this.getDelegationStatus()
    const nowS = (this.#options.now ?? Date.now)() / 1000
    if (status.authorized && (status.expiration ?? Infinity) - nowS > minSeconds) return status
    await this.transport.storeDelegation()
    return await this.getDelegationStatus()
  }

  async getUserPreferences (signal?: AbortSignal): Promise<UserPreferences | null> {
    return await this.transport.json('GET', '/user-preferences', { signal })
  }

  // ── socket ──

  connectSocket (sessionId: string, options: SocketOptions = {}): OracleSocket {
    return new OracleSocket(this.transport, sessionId, this.wsUrl, options).connect()
  }
}
