/**
 * Cumulative `text` (inputs joined with `*`), kept to tell a retry from a new input. PIN characters are kept
 * as MASK (U+FFFF: no handset can type it, and it matches anything), so no PIN is stored; `*` stays.
 */
export const MASK = '\uffff'
const MASK_CODE = 0xffff
const STAR = 42

/** Equal over the first `length` characters, a masked one matching any. */
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
 * `text` is the kept text of some hops ago (`2*2` when `2*2*Jane` is kept, or `''`); a shorter text ending
 * inside an input is a new input from an aggregator that sends only the latest one.
 */
export const earlierText = (kept: string, text: string): boolean =>
  text.length < kept.length &&
  (text.length === 0 || (kept.charCodeAt(text.length) === STAR && agrees(kept, text, text.length)))

/**
 * What `text` adds: undefined for a retry (same or earlier text); `<suffix>` whole for `kept*<suffix>`,
 * whatever `*` or `0` it holds; otherwise the whole text (aggregators that send only the latest input).
 */
export function newInput (kept: string, text: string): NewInput | undefined {
  if (sameText(kept, text) || earlierText(kept, text)) return undefined
  const extended = text.length > kept.length && text.charCodeAt(kept.length) === STAR
  if (kept.length > 0 && extended && agrees(kept, text, kept.length)) {
    return { value: text.slice(kept.length + 1), extends: true }
  }
  return { value: text, extends: false }
}

/** The text to keep after `input` arrived in `text`, with a PIN typed at a secret prompt masked. */
export function keepText (kept: string, input: NewInput, text: string, secret: boolean): string {
  // A PIN taken whole leaves no text: masked, it would match every later input of its length and make
  // each one look like a retry. The cost: a retry of that very hop counts again.
  if (secret) return input.extends ? `${kept}*${maskText(input.value)}` : ''
  return input.extends && kept.includes(MASK) ? `${kept}*${input.value}` : text
}

/** Every character but `*` masked (a first request whose inputs were not all replayed may carry a PIN). */
export const maskText = (text: string): string => text.replace(NOT_STAR, MASK)
const NOT_STAR = /[^*]/g

/** The configured base code that a dialled code extends with shortcut segments (`*384*123#` for `*384*123*1*2#`). */
export const baseCodeOf = (serviceCode: string, baseCodes: readonly string[]): string | undefined =>
  baseCodes.find((base) => serviceCode.length > base.length && serviceCode.startsWith(`${base.slice(0, -1)}*`))

/** Inputs of a first request: dial segments beyond a base code (`*384*123*1*2#`), then those of its `text`. */
export function shortcutInputs (serviceCode: string, baseCodes: readonly string[], text: string): string[] {
  const base = baseCodeOf(serviceCode, baseCodes)
  const inputs = base === undefined ? [] : serviceCode.slice(base.length, -1).split('*')
  if (text !== '') inputs.push(...text.split('*'))
  return inputs
}
