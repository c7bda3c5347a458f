// A `did-resolver` method resolver reading did:ixo documents from a registry's DID Resolution HTTP(S) binding.
import type { DIDResolutionResult, DIDResolver, ParsedDID } from 'did-resolver'

export interface IxoResolverOptions {
  /** The binding's base, ending in `/1.0/identifiers/`. */
  url: string
  /** Gives up after this long (default 10 s). */
  timeoutMs?: number
  fetch?: typeof fetch
}

const ACCEPT = 'application/did+ld+json;profile="https://w3id.org/did-resolution"'
const OPTIONS = ['versionId', 'versionTime'] as const

const failed = (error: string, message: string): DIDResolutionResult =>
  ({ didResolutionMetadata: { error, message }, didDocument: null, didDocumentMetadata: {} })

export function getResolver (options: IxoResolverOptions): { ixo: DIDResolver } {
  const base = options.url.endsWith('/') ? options.url : `${options.url}/`
  const fetchImpl = options.fetch ?? fetch
  return {
    async ixo (did: string, parsed: ParsedDID) {
      const url = new URL(encodeURIComponent(did), base)
      const query = new URLSearchParams(parsed.query ?? '')
      for (const name of OPTIONS) {
        // did-resolver passes the DID URL's query as `query` (older versions parsed it into `params`).
        const value = query.get(name) ?? (parsed as ParsedDID & { params?: Record<string, string> }).params?.[name]
        if (value !== undefined) url.searchParams.set(name, value)
      }
      let response: Response
      try {
        response = await fetchImpl(url, {
          headers: { accept: ACCEPT },
          signal: AbortSignal.timeout(options.timeoutMs ?? 10_000)
        })
      } catch (error) {
        return failed('internalError', `registry unreachable: ${(error as Error).message}`)
      }
      let body: Partial<DIDResolutionResult> | undefined
      try {
        body = await response.json() as Partial<DIDResolutionResult>
      } catch {
        return failed('internalError', `registry answered ${response.status} without a resolution result`)
      }
      if (body?.didResolutionMetadata === undefined) {
        return failed('internalError', `registry answered ${response.status} without a resolution result`)
      }
      // The binding's 4xx/410 bodies are resolution results too (notFound, invalidDid, deactivated…).
      return {
        didResolutionMetadata: body.didResolutionMetadata,
        didDocument: body.didDocument ?? null,
        didDocumentMetadata: body.didDocumentMetadata ?? {}
      }
    }
  }
}
