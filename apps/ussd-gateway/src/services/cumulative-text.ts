// The cumulative `text` is kept to tell a retry from a new input. PINs are kept as MASK (no handset can
// type U+FFFF; it matches anything), so no PIN is stored.
export const MASK = '\uffff'
const MASK_CODE = 0xffff
const STAR = 42

function agrees (kept: string, text: string, length: number): boolean {
  for (let i = 0; i < length; i++) {
    const code = kept.charCodeAt(i)
    if (code !== text.charCodeAt(i) && code !== MASK_CODE) return false
  }
  return true
}

export const sameText = (kept: string, text: string): boolean =>
  text.length === kept.length && agrees(kept, text, text.length)

export interface NewInput { value: string, extends: boolean }

/** A shorter text ending inside an input is a new input from an aggregator that sends only the latest. */
export const earlierText = (kept: string, text: string): boolean =>
  text.length < kept.length &&
  (text.length === 0 || (kept.charCodeAt(text.length) === STAR && agrees(kept, text, text.length)))

/** Undefined for a retry; the suffix of `kept*<suffix>` is taken whole, whatever `*` or `0` it holds. */
export function newInput (kept: string, text: string): NewInput | undefined {
  if (sameText(kept, text) || earlierText(kept, text)) return undefined
  const extended = text.length > kept.length && text.charCodeAt(kept.length) === STAR
  if (kept.length > 0 && extended && agrees(kept, text, kept.length)) {
    return { value: text.slice(kept.length + 1), extends: true }
  }
  return { value: text, extends: false }
}

export function keepText (kept: string, input: NewInput, text: string, secret: boolean): string {
  // A whole masked PIN would match every later input of its length and make each look like a retry.
  if (secret) return input.extends ? `${kept}*${maskText(input.value)}` : ''
  return input.extends && kept.includes(MASK) ? `${kept}*${input.value}` : text
}

/** A first request whose inputs were not all replayed may carry a PIN. */
export const maskText = (text: string): string => text.replace(NOT_STAR, MASK)
const NOT_STAR = /[^*]/g

/** The longest configured code that `serviceCode` extends (`*384*123#` for `*384*123*1*2#`). */
export function baseCodeOf (serviceCode: string, baseCodes: readonly string[]): string | undefined {
  if (baseCodes.includes(serviceCode)) return undefined
  let found: string | undefined
  for (const base of baseCodes) {
    const extendsBase = serviceCode.length > base.length && serviceCode.startsWith(`${base.slice(0, -1)}*`)
    if (extendsBase && base.length > (found?.length ?? 0)) found = base
  }
  return found
}

export function shortcutInputs (serviceCode: string, baseCodes: readonly string[], text: string): string[] {
  const base = baseCodeOf(serviceCode, baseCodes)
  const inputs = base === undefined ? [] : serviceCode.slice(base.length, -1).split('*')
  if (text !== '') inputs.push(...text.split('*'))
  return inputs
}
