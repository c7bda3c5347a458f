import { createHash } from 'node:crypto'

/** JSON with object keys sorted at every level, so equal bodies give equal text whatever the key order. */
export function canonicalJson (value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

/** What an Idempotency-Key is bound to: the request body, whatever its formatting. */
export const fingerprint = (body: unknown) => createHash('sha256').update(canonicalJson(body)).digest('hex')
