/**
 * USSD screen limits and paging. A reply is `CON <body>` or `END <body>` and must fit one USSD
 * message: 182 GSM-7 characters (160 bytes of 7-bit characters), prefix included.
 */
export const MAX_REPLY_CHARS = 182
export const PREFIX_CHARS = 4
export const MAX_BODY_CHARS = MAX_REPLY_CHARS - PREFIX_CHARS

// GSM 03.38 basic set, and the extension set whose characters take two septets (ESC + char).
const GSM7_BASIC = '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà'
const GSM7_EXTENDED = '^{}\\[~]|€\f'

/**
 * Septets per UTF-16 code unit, 0 for none (outside GSM-7). Every GSM-7 character is one code
 * unit, so a lookup per unit measures a screen; every reply is measured on every hop.
 */
const SEPTETS = new Uint8Array(0x10000)
for (const char of GSM7_BASIC) SEPTETS[char.charCodeAt(0)] = 1
for (const char of GSM7_EXTENDED) SEPTETS[char.charCodeAt(0)] = 2

export const isGsm7 = (text: string): boolean => Number.isFinite(gsm7Length(text))

/** Septets the text takes in GSM-7; Infinity when a character would force UCS-2 (about 80 characters). */
export function gsm7Length (text: string): number {
  let length = 0
  for (let i = 0; i < text.length; i++) {
    const septets = SEPTETS[text.charCodeAt(i)] ?? 0
    if (septets === 0) return Number.POSITIVE_INFINITY
    length += septets
  }
  return length
}

export interface Screen {
  /** Title, options and paragraphs; paged when they do not fit. */
  lines: string[]
  /** Navigation shown on every page (`0. Back`, `*. Exit`). */
  footer: string[]
  /** An END screen closes the session; it cannot be paged, so it must fit (tests check every one). */
  end?: boolean
}

const joinedLength = (lines: string[]) => gsm7Length(lines.join('\n'))

/** Splits a line that cannot fit on a page at spaces (or hard, for one overlong word). */
function wrap (line: string, budget: number): string[] {
  const pieces: string[] = []
  let current = ''
  for (const word of line.split(' ')) {
    const candidate = current === '' ? word : `${current} ${word}`
    if (gsm7Length(candidate) <= budget) {
      current = candidate
      continue
    }
    if (current !== '') pieces.push(current)
    current = word
    while (gsm7Length(current) > budget) {
      pieces.push(current.slice(0, budget))
      current = current.slice(budget)
    }
  }
  if (current !== '') pieces.push(current)
  return pieces
}

/**
 * Pages of a screen, each within MAX_BODY_CHARS. Only when the whole screen does not fit, the
 * lines are spread over pages that end in `moreLabel` (`98. More`) above the footer; the footer
 * repeats on every page. Nothing is ever cut off.
 */
export function paginate (screen: Screen, moreLabel: string): string[] {
  const whole = [...screen.lines, ...screen.footer].join('\n')
  const known = fitting.get(whole)
  if (known !== undefined) return known
  if (gsm7Length(whole) <= MAX_BODY_CHARS) {
    if (fitting.size >= FITTING_SIZE) fitting.clear()
    const page = [whole]
    fitting.set(whole, page)
    return page
  }
  return screen.end === true ? [truncate(whole)] : spread(screen, moreLabel)
}

/**
 * Screens that fit one page, by their text (most screens are the same for every user). A hit
 * skips measuring the text and hands back the same page string every time: a session keeps its
 * last screen, and a fresh string per hop was one more object surviving into the old generation.
 * Bounded: screens that carry a name or an id churn through it. Callers must not change the arrays.
 */
const FITTING_SIZE = 512
const fitting = new Map<string, string[]>()

function spread (screen: Screen, moreLabel: string): string[] {
  const tail = [moreLabel, ...screen.footer]
  const budget = MAX_BODY_CHARS - joinedLength(tail) - 1
  const pages: string[][] = []
  let page: string[] = []
  for (const line of screen.lines.flatMap((l) => (gsm7Length(l) > budget ? wrap(l, budget) : [l]))) {
    if (page.length > 0 && joinedLength([...page, line]) > budget) {
      pages.push(page)
      page = []
    }
    page.push(line)
  }
  if (page.length > 0) pages.push(page)
  return pages.map((lines, index) => (index < pages.length - 1 ? [...lines, ...tail] : [...lines, ...screen.footer]).join('\n'))
}

/** Last resort for END texts (never reached by the built-in screens): cut at a word and mark it. */
function truncate (text: string): string {
  const pieces = wrap(text.replace(/\n/g, ' '), MAX_BODY_CHARS - 3)
  return `${pieces[0] ?? ''}...`
}
