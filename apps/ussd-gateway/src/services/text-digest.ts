import { hash } from 'node:crypto'

/**
 * Keyed digest of a cumulative USSD `text`. Sessions keep this instead of the text itself, because
 * the text carries PINs; the key keeps the digest from being searched offline (PINs are only 5
 * digits). SHA-256 over key || text, truncated to 132 bits: the digest never leaves the server,
 * so SHA-256's length extension (forging digests of longer texts) gives nobody anything, and the
 * one-shot `hash` with SHA-256 (hardware-accelerated) costs 0.38 µs a call where SHA3-256 cost
 * 0.61 µs and an HMAC object 1.5 µs. A hop needs two digests.
 */
export function createTextDigest (key: Buffer) {
  const prefix = `${key.toString('hex')}:`
  return (text: string): string => hash('sha256', prefix + text, 'base64url').slice(0, 22)
}

export type TextDigest = ReturnType<typeof createTextDigest>

export type NewInput = { kind: 'replay' } | { kind: 'input', value: string }

/**
 * What a cumulative `text` adds to the last one the session saw: the same text is a retry (replay
 * the stored reply); a text that extends it by `*<suffix>` brings exactly `<suffix>` as one input,
 * whatever `*` or `0` the suffix holds. A text that does not extend it (an aggregator that sends
 * only the latest input) is taken whole.
 */
export function newInput (last: { textLength: number, textDigest: string }, text: string, digest: TextDigest): NewInput {
  if (text.length === last.textLength && digest(text) === last.textDigest) return { kind: 'replay' }
  if (last.textLength === 0) return { kind: 'input', value: text }
  if (text.length > last.textLength && text[last.textLength] === '*' && digest(text.slice(0, last.textLength)) === last.textDigest) {
    return { kind: 'input', value: text.slice(last.textLength + 1) }
  }
  return { kind: 'input', value: text }
}

/**
 * Inputs carried by the first request: extra segments of the dialled code after a configured base
 * code (`*384*123*1*2#` with base `*384*123#`), then the segments of a non-empty first `text`.
 */
export function shortcutInputs (serviceCode: string, baseCodes: readonly string[], text: string): string[] {
  const inputs: string[] = []
  for (const base of baseCodes) {
    const stem = base.slice(0, -1)
    if (serviceCode.length > base.length && serviceCode.startsWith(`${stem}*`)) {
      inputs.push(...serviceCode.slice(stem.length + 1, -1).split('*'))
      break
    }
  }
  if (text !== '') inputs.push(...text.split('*'))
  return inputs
}
