import { base58btc } from '@ucanto/core'

/** The did:key forms of a DID's signing keys (any of them may verify); empty for an unknown DID. */
export type DidKeyResolver = (did: string) => Promise<string[]>

/** Multicodec prefix of an Ed25519 public key (0xed 0x01). */
const ED25519_PREFIX = Uint8Array.of(0xed, 0x01)

/** `did:key` of a raw 32-byte Ed25519 public key. */
export function ed25519DidKey (publicKey: Uint8Array): string {
  if (publicKey.length !== 32) throw new TypeError('an Ed25519 public key has 32 bytes')
  const bytes = new Uint8Array(34)
  bytes.set(ED25519_PREFIX)
  bytes.set(publicKey, 2)
  return `did:key:${base58btc.encode(bytes)}`
}

interface VerificationMethod {
  id?: string
  type?: string
  publicKeyMultibase?: string
  publicKeyHex?: string
  publicKeyBase58?: string
}

/** did:key forms of the Ed25519 signing keys of a DID document's verification methods. */
export function didKeysOf (methods: VerificationMethod[]): string[] {
  const keys = new Set<string>()
  for (const method of methods) {
    const type = method.type ?? ''
    if (!type.includes('Ed25519') && type !== 'JsonWebKey2020' && !(method.id ?? '').includes('signing')) continue
    try {
      if (method.publicKeyMultibase?.startsWith('z6Mk') === true) keys.add(`did:key:${method.publicKeyMultibase}`)
      else if (method.publicKeyHex !== undefined && /^[0-9a-fA-F]{64}$/.test(method.publicKeyHex)) {
        keys.add(ed25519DidKey(Buffer.from(method.publicKeyHex, 'hex')))
      } else if (method.publicKeyBase58 !== undefined) {
        keys.add(ed25519DidKey(base58btc.baseDecode(method.publicKeyBase58)))
      }
    } catch {
      // A key we cannot read is not a key that can verify anything; the others still count.
    }
  }
  return [...keys]
}

export interface BlocksyncResolverOptions {
  /** Blocksync GraphQL endpoint (`BLOCKSYNC_GRAPHQL_URL`). */
  url: string
  timeoutMs?: number
  /** How long resolved keys (and unknown DIDs) are remembered. */
  cacheTtlMs?: number
  maxEntries?: number
  fetch?: typeof fetch
}

const IID_QUERY = 'query ($id: String!) { iids(filter: { id: { equalTo: $id } }) { nodes { id verificationMethod } } }'

/** Resolves DIDs through Blocksync's `iids`; failures are not cached, so a Blocksync blip locks nobody out. */
export function createBlocksyncResolver (options: BlocksyncResolverOptions): DidKeyResolver {
  const { url, timeoutMs = 3000, cacheTtlMs = 60_000, maxEntries = 10_000 } = options
  const doFetch = options.fetch ?? fetch
  const cache = new Map<string, { keys: string[], expiresAt: number }>()
  return async function resolveViaBlocksync (did) {
    const hit = cache.get(did)
    if (hit !== undefined && hit.expiresAt > Date.now()) return hit.keys
    const response = await doFetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query: IID_QUERY, variables: { id: did } }),
      signal: AbortSignal.timeout(timeoutMs)
    })
    if (!response.ok) throw new Error(`blocksync answered ${response.status}`)
    const body = (await response.json()) as {
      data?: { iids?: { nodes?: Array<{ id?: string, verificationMethod?: unknown }> } }
    }
    const node = body.data?.iids?.nodes?.find((n) => n.id === did)
    const methods = Array.isArray(node?.verificationMethod) ? node.verificationMethod as VerificationMethod[] : []
    const keys = didKeysOf(methods)
    if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string)
    cache.set(did, { keys, expiresAt: Date.now() + cacheTtlMs })
    return keys
  }
}
