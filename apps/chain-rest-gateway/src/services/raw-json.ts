/**
 * wasmd's RawContractMessage (contract queries' answers, execute/instantiate/migrate `msg`) is bytes
 * whose MarshalJSON returns them as they are; Go's encoding/json then compacts that JSON and escapes
 * `<`, `>`, `&`, U+2028 and U+2029. Numbers are copied as text, so no precision is lost.
 */
const decoder = new TextDecoder('utf-8', { fatal: true })

const ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029'
}

function compact (text: string): string {
  let out = ''
  let inString = false
  let start = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++
      else if (c === 0x22) inString = false
    } else if (c === 0x22) {
      inString = true
    } else if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
      out += text.slice(start, i)
      start = i + 1
    }
  }
  return out + text.slice(start)
}

/** The bytes as inline JSON, or undefined when they are not JSON (the caller falls back to base64). */
export function inlineJson (bytes: Uint8Array): string | undefined {
  let text: string
  try {
    text = decoder.decode(bytes)
    JSON.parse(text)
  } catch {
    return undefined
  }
  return compact(text).replace(/[<>&\u2028\u2029]/g, (c) => ESCAPES[c]!)
}
