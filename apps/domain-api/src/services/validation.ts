import { invalid } from '../errors.ts'
import { ACCEPTED_TYPE_NAMES, canonicalEntityType } from './entity-types.ts'

export const MAX_METADATA_BYTES = 16 * 1024

type Detail = { field: string, message: string }

/** The stored entity type, or a 400 naming the accepted spellings. */
export function entityTypeOf (input: string, field = '/type'): string {
  const type = canonicalEntityType(input)
  if (type === undefined) {
    throw invalid(`Unknown entity type "${input.slice(0, 64)}"`, [
      {
        field,
        message: `must be one of ${ACCEPTED_TYPE_NAMES.join(', ')} (any case) ` +
          'or an on-chain entity type such as dao, asset/device, protocol/claim'
      }
    ])
  }
  return type
}

/** `class` and `protocol` both carry the protocol DID; one is required and two must agree. */
export function classOf (body: { class?: string | undefined, protocol?: string | undefined }): string {
  if (body.class !== undefined && body.protocol !== undefined && body.class !== body.protocol) {
    throw invalid('class and protocol must be the same DID when both are sent', [
      { field: '/protocol', message: 'must equal class' }
    ])
  }
  const did = body.class ?? body.protocol
  if (did === undefined) {
    throw invalid('The protocol DID is required, as class or protocol', [
      { field: '/class', message: 'is required (or send protocol)' }
    ])
  }
  return did
}

export const toInstant = (value: string | null): Date | null => (value === null ? null : new Date(value))

/**
 * validFrom must precede validUntil, and a validUntil being set must lie ahead (a domain born
 * expired could never be used). Both arrive as schema-checked RFC 3339 strings.
 */
export function checkValidity (from: Date | null, until: Date | null, now: Date, untilChanged: boolean): void {
  const details: Detail[] = []
  if (from !== null && until !== null && from.getTime() >= until.getTime()) {
    details.push({ field: '/validUntil', message: 'must be after validFrom' })
  } else if (untilChanged && until !== null && until.getTime() <= now.getTime()) {
    details.push({ field: '/validUntil', message: 'must be in the future' })
  }
  if (details.length > 0) throw invalid('Invalid validity period', details)
}

export function checkMetadata (metadata: Record<string, unknown> | undefined): void {
  if (metadata === undefined) return
  if (Buffer.byteLength(JSON.stringify(metadata)) > MAX_METADATA_BYTES) {
    throw invalid('metadata is too large', [
      { field: '/metadata', message: `must be at most ${MAX_METADATA_BYTES} bytes of JSON` }
    ])
  }
}
