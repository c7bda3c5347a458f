/**
 * Cumulative `text` (every input so far, joined with `*`): the session keeps the last one to tell a retry
 * from a new input. Characters typed at a PIN prompt are kept as MASK (U+FFFF, which matches any character
 * and no handset can type), so no PIN is kept; a `*` stays, as it marks where earlier texts end.
 */
export const MASK = '\uffff'
const MASK_CODE = 0xffff
const STAR = 42

/** True when `text` agrees with the kept text over its first `length` characters. */
function agrees (kept: string, text: string, length: number): boolean {
  for (let i = 0; i < length; i++) {
    const code = kept.charCodeAt(i)
    if (code !== text.charCodeAt(i) && code !== MASK_CODE) return false
  }
  return true
}

/** True when `text` is the kept text again (a retry of the same hop). */
export const sameText = (kept: string, text: string): boolean =>
  text.length === kept.length && agrees(kept, text, text.length)

/** A new input, and whether it extends the kept text (`kept*value`) or is taken whole. */
export interface NewInput { value: string, extends: boolean }

/**
 * True when `text` is what the kept text was some hops ago (`2*2` when `2*2*Jane` is kept), the
 * first hop's empty text included. Only such texts: a shorter text that ends inside an input is
 * a new input of an aggregator that sends the latest one alone.
 */
export const earlierText = (kept: string, text: string): boolean =>
  text.length < kept.length &&
  (text.length === 0 || (kept.charCodeAt(text.length) === STAR && agrees(kept, text, text.length)))

/**
 * What a cumulative `text` adds to the kept one: undefined for a retry (the same or an earlier text);
 * `<suffix>` whole for a text that extends it by `*<suffix>`, whatever `*` or `0` it holds; any other
 * text whole (an aggregator that sends only the latest input).
 */
export function newInput (kept: string, text: string): NewInput | undefined {
  if (sameText(kept, text) || earlierText(kept, text)) return undefined
  const extended = text.length > kept.length && text.charCodeAt(kept.length) === STAR
  if (kept.length > 0 && extended && agrees(kept, text, kept.length)) {
    return { value: text.slice(kept.length + 1), extends: true }
  }
  return { value: text, extends: false }
}

/**
 * What the session keeps after `input` arrived in `text`: the input masked when it was typed at a
 * PIN prompt. Without a mask anywhere that is `text` itself, kept as it came (no new string).
 */
export function keepText (kept: string, input: NewInput, text: string, secret: boolean): string {
  // A PIN taken whole leaves no text: masked, it would match every later input of its length and make
  // each one look like a retry. The cost: a retry of that very hop counts again.
  if (secret) return input.extends ? `${kept}*${maskText(input.value)}` : ''
  return input.extends && kept.includes(MASK) ? `${kept}*${input.value}` : text
}

/** Every character but `*` masked (a first request whose inputs were not all replayed may carry a PIN). */
export const maskText = (text: string): string => text.replace(NOT_STAR, MASK)
const NOT_STAR = /[^*]/g

/**
 * The configured base code that a dialled code extends with shortcut segments (`*384*123#` for `*384*123*1*2#`):
 * none for a code configured itself, else the longest that fits (`*384*123#` before `*384#`).
 */
export function baseCodeOf (serviceCode: string, baseCodes: readonly string[]): string | undefined {
  if (baseCodes.includes(serviceCode)) return undefined
  let found: string | undefined
  for (const base of baseCodes) {
    const extendsBase = serviceCode.length > base.length && serviceCode.startsWith(`${base.slice(0, -1)}*`)
    if (extendsBase && base.length > (found?.length ?? 0)) found = base
  }
  return found
}

/**
 * Inputs carried by the first request: extra segments of the dialled code after a configured base
 * code (`*384*123*1*2#` with base `*384*123#`), then the segments of a non-empty first `text`.
 */
export function shortcutInputs (serviceCode: string, baseCodes: readonly string[], text: string): string[] {
  const base = baseCodeOf(serviceCode, baseCodes)
  const inputs = base === undefined ? [] : serviceCode.slice(base.length, -1).split('*')
  if (text !== '') inputs.push(...text.split('*'))
  return inputs
}
