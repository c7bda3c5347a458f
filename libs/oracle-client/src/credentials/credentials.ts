import { readUcanExpiry } from './ucan-expiry.ts'

/** Who the credential is for: the user signing and the oracle it is addressed to. */
export interface CredentialRequest { userDid: string, oracleDid: string }

/** What a mint callback returns: the base64 CAR, or the CAR with its expiry already known (Unix seconds). */
export type MintedCredential = string | { token: string, expiration?: number }
export type MintCallback = (request: CredentialRequest) => Promise<MintedCredential> | MintedCredential

export type CredentialKind = 'invocation' | 'delegation'

interface Entry { token: string, refreshAt: number }

/**
 * Signed credentials kept per (kind, user DID, oracle DID) until shortly before they expire, so a
 * wallet is asked to sign once per lifetime rather than once per request. Concurrent requests for a
 * credential that is being minted share that one mint. Tokens never leave this object except as the
 * headers the client sends; nothing here logs.
 */
export class CredentialCache {
  readonly #entries = new Map<string, Entry>()
  readonly #pending = new Map<string, Promise<string>>()

  /** The cached token, or a fresh one from `mint` when there is none or it is due for renewal. */
  async get (key: string, nowMs: number, mint: () => Promise<Entry>): Promise<string> {
    const entry = this.#entries.get(key)
    if (entry !== undefined && entry.refreshAt > nowMs) return entry.token
    let pending = this.#pending.get(key)
    if (pending === undefined) {
      pending = mint().then((fresh) => {
        this.#entries.set(key, fresh)
        return fresh.token
      }).finally(() => { this.#pending.delete(key) })
      this.#pending.set(key, pending)
    }
    return await pending
  }

  /** Drops a token the oracle refused (or that must be renewed now); an in-flight mint is kept. */
  delete (key: string, token?: string): void {
    if (token === undefined || this.#entries.get(key)?.token === token) this.#entries.delete(key)
  }

  clear (): void {
    this.#entries.clear()
  }
}

export interface CredentialOptions {
  userDid: string
  oracleDid: string
  createDelegation: MintCallback
  createInvocation?: MintCallback | undefined
  cache?: CredentialCache | undefined
  /** Renew an invocation this long before it expires (default 30 s, as the ixo SDK). */
  invocationMarginSeconds?: number | undefined
  /** Renew a delegation this long before it expires (default 5 min). */
  delegationMarginSeconds?: number | undefined
  /** How long to keep a token whose expiry cannot be read from it (default 60 s). */
  unknownExpiryTtlSeconds?: number | undefined
  now?: (() => number) | undefined
}

export interface AuthArtifacts { delegation: string, invocation?: string }

/** The credentials of one (user, oracle) pair: minting through the app's callbacks, caching, headers. */
export class Credentials {
  readonly userDid: string
  readonly oracleDid: string
  readonly #options: CredentialOptions
  readonly #cache: CredentialCache
  readonly #now: () => number

  constructor (options: CredentialOptions) {
    this.#options = options
    this.userDid = options.userDid
    this.oracleDid = options.oracleDid
    this.#cache = options.cache ?? new CredentialCache()
    this.#now = options.now ?? Date.now
  }

  /** Invocation auth is used only when the app can mint invocations; otherwise delegation-only. */
  get usesInvocation (): boolean {
    return this.#options.createInvocation !== undefined
  }

  #key (kind: CredentialKind): string {
    return `${kind}\u0000${this.userDid}\u0000${this.oracleDid}`
  }

  async #mint (kind: CredentialKind): Promise<Entry> {
    const callback = kind === 'delegation' ? this.#options.createDelegation : this.#options.createInvocation
    if (callback === undefined) throw new TypeError(`no ${kind} callback is configured`)
    const minted = await callback({ userDid: this.userDid, oracleDid: this.oracleDid })
    const token = typeof minted === 'string' ? minted : minted.token
    if (typeof token !== 'string' || token === '') throw new TypeError(`the ${kind} callback returned no token`)
    const stated = typeof minted === 'string' ? undefined : minted.expiration
    const expiration = stated ?? readUcanExpiry(token)
    const nowS = this.#now() / 1000
    let refreshAt: number
    if (expiration === undefined || !Number.isFinite(expiration)) {
      refreshAt = nowS + (this.#options.unknownExpiryTtlSeconds ?? 60)
    } else {
      const margin =
        kind === 'invocation'
          ? (this.#options.invocationMarginSeconds ?? 30)
          : (this.#options.delegationMarginSeconds ?? 300)
      // A token that lives shorter than twice the margin is renewed half-way through its life instead.
      refreshAt = expiration - Math.min(margin, Math.max(0, (expiration - nowS) / 2))
    }
    return { token, refreshAt: refreshAt * 1000 }
  }

  async get (kind: CredentialKind): Promise<string> {
    return await this.#cache.get(this.#key(kind), this.#now(), async () => await this.#mint(kind))
  }

  /** Forgets the cached token of a kind (after the oracle refused it), so the next use mints anew. */
  invalidate (kind: CredentialKind, token?: string): void {
    this.#cache.delete(this.#key(kind), token)
  }

  async artifacts (): Promise<AuthArtifacts> {
    const [delegation, invocation] = await Promise.all([
      this.get('delegation'),
      this.usesInvocation ? this.get('invocation') : undefined
    ])
    return invocation === undefined ? { delegation } : { delegation, invocation }
  }

  /** `Authorization: Bearer` + `X-Auth-Type: ucan` with an invocation callback, and `x-ucan-delegation` always. */
  static headersOf (artifacts: AuthArtifacts): Record<string, string> {
    const headers: Record<string, string> = { 'x-ucan-delegation': artifacts.delegation }
    if (artifacts.invocation !== undefined) {
      headers.authorization = `Bearer ${artifacts.invocation}`
      headers['x-auth-type'] = 'ucan'
    }
    return headers
  }
}
