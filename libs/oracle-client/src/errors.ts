// Like the ixo SDK, the status comes from the body's `statusCode`, falling back to HTTP's.

export type ErrorBody = Record<string, unknown> & {
  statusCode?: number
  message?: string
  error?: string
  code?: string
}

const strings = (value: unknown): string[] | undefined =>
  Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : undefined

/** Found by field presence (`claims` or `outstandingClaims`), not by status. */
export function claimIdsOf (body: unknown): string[] | undefined {
  if (typeof body !== 'object' || body === null) return undefined
  const record = body as Record<string, unknown>
  return strings(record.claims) ?? strings(record.outstandingClaims)
}

export class OracleRequestError extends Error {
  override readonly name: string = 'OracleRequestError'
  /** 0 when the request never got an answer. */
  readonly status: number
  readonly code: string | undefined
  readonly body: ErrorBody
  readonly claimIds: string[] | undefined

  constructor (message: string, status: number, body: ErrorBody = {}, options?: { cause?: unknown }) {
    super(message, options)
    this.status = status
    this.body = body
    this.code = typeof body.code === 'string' ? body.code : undefined
    this.claimIds = claimIdsOf(body)
  }

  get isPaymentRequired (): boolean {
    return this.claimIds !== undefined
  }

  static async fromResponse (response: Response): Promise<OracleRequestError> {
    let body: ErrorBody = {}
    try {
      const parsed: unknown = JSON.parse(await response.text())
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) body = parsed as ErrorBody
    } catch {
      // Not JSON (a proxy's HTML page): the HTTP status and reason still say what happened.
    }
    const status = typeof body.statusCode === 'number' ? body.statusCode : response.status
    const message =
      typeof body.message === 'string' && body.message !== ''
        ? body.message
        : `${response.status} ${response.statusText}`.trim()
    return new OracleRequestError(message, status, body)
  }
}

/** Network down, CORS or timeout. */
export class OracleNetworkError extends OracleRequestError {
  override readonly name = 'OracleNetworkError'
  constructor (message: string, cause: unknown) {
    super(message, 0, {}, { cause })
  }
}

/** The oracle sent an `error` event after the stream opened. */
export class OracleStreamError extends Error {
  override readonly name = 'OracleStreamError'
  readonly kind: string | undefined
  readonly retryable: boolean | undefined
  readonly payload: Record<string, unknown>
  constructor (payload: { error: string, kind?: string, retryable?: boolean } & Record<string, unknown>) {
    super(payload.error)
    this.kind = payload.kind
    this.retryable = payload.retryable
    this.payload = payload
  }
}

const DELEGATION_CODES = /^(?:UCAN_INVALID_DELEGATION|(?:[A-Z]+_)?DELEGATION_(?:MISSING|EXPIRED|REQUIRED|NOT_FOUND))$/
const DELEGATION_KINDS = /^delegation[_-]?(?:missing|expired|required|not[_-]?found)?$/i
const DELEGATION_TEXT =
  /\bdelegation\b[^.]{0,40}\b(?:missing|expired|not found|required|no longer valid)\b|\b(?:missing|expired|no|re-?authori[sz]e)\b[^.]{0,20}\bdelegation\b/i

/** The client answers a re-authorisation prompt with a fresh delegation, and the turn goes on. */
export function isDelegationPrompt (payload: unknown): boolean {
  return isDelegationReport(payload) && (payload as { retryable?: unknown }).retryable !== false
}

/** Missing or expired delegation; "Missing UCAN authentication" (no credential at all) is not one. */
export function isDelegationReport (report: unknown): boolean {
  if (typeof report !== 'object' || report === null) return false
  const { code, kind, message, error } = report as Record<string, unknown>
  if (code === 'UCAN_MISSING') return false
  if (typeof code === 'string' && DELEGATION_CODES.test(code)) return true
  if (typeof kind === 'string' && DELEGATION_KINDS.test(kind)) return true
  for (const text of [message, error]) {
    if (typeof text === 'string' && DELEGATION_TEXT.test(text) && !/^Missing UCAN authentication/.test(text)) {
      return true
    }
  }
  return false
}
