// A reply, `CON `/`END ` prefix included, must fit one 7-bit USSD message.
export const MAX_REPLY_CHARS = 182
export const PREFIX_CHARS = 4
export const MAX_BODY_CHARS = MAX_REPLY_CHARS - PREFIX_CHARS

// GSM 03.38 basic set, and the extension set whose characters take two septets (ESC + char).
const GSM7_BASIC = '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡' +
  'ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà'
const GSM7_EXTENDED = '^{}\\[~]|€\f'

const SEPTETS = new Uint8Array(0x10000)
for (const char of GSM7_BASIC) SEPTETS[char.charCodeAt(0)] = 1
for (const char of GSM7_EXTENDED) SEPTETS[char.charCodeAt(0)] = 2

export const isGsm7 = (text: string): boolean => Number.isFinite(gsm7Length(text))

/** Infinity when a character would force UCS-2. */
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
  lines: string[]
  footer: string[]
  /** END screens cannot be paged, so they must fit. */
  end?: boolean
}

const joinedLength = (lines: string[]) => gsm7Length(lines.join('\n'))

/** At least one character, even one wider than the budget. */
function fittingPrefix (text: string, budget: number): number {
  let septets = 0
  for (let i = 0; i < text.length; i++) {
    // A character outside GSM-7 (0 in the table) is counted as one: the caller checks the alphabet.
    septets += Math.max(SEPTETS[text.charCodeAt(i)] ?? 0, 1)
    if (septets > budget) return Math.max(i, 1)
  }
  return text.length
}

/** With `whole` false the head is empty instead, so the caller moves to a fresh page rather than cut a word. */
function splitAt (text: string, budget: number, whole = true): [string, string] {
  const end = fittingPrefix(text, budget)
  if (end >= text.length) return [text, '']
  const space = text.lastIndexOf(' ', end)
  if (space > 0) return [text.slice(0, space), text.slice(space + 1)]
  return whole ? [text.slice(0, end), text.slice(end)] : ['', text]
}

function wrap (line: string, budget: number): string[] {
  const pieces: string[] = []
  let rest = line
  while (rest !== '') {
    const [head, tail] = splitAt(rest, budget)
    pieces.push(head)
    rest = tail
  }
  return pieces
}

/** Pages that overflow end in `moreLabel`; the footer repeats on every page. */
export function paginate (screen: Screen, moreLabel: string): string[] {
  const whole = [...screen.lines, ...screen.footer].join('\n')
  if (gsm7Length(whole) <= MAX_BODY_CHARS) return [whole]
  return screen.end === true ? [truncate(whole)] : spread(screen, moreLabel)
}

/** Menu options (`1. English`, `*. Exit`, `00. Skip`) are never split over two pages. */
const OPTION = /^(\d{1,2}|\*|#)\. /
/** Lines this long are prose and may flow over a page end; shorter ones move whole. */
const PARAGRAPH = 80
const MIN_PIECE = 24

// A paragraph flows on at a space, so a message above a long text shares its first page.
function spread (screen: Screen, moreLabel: string): string[] {
  const tail = [moreLabel, ...screen.footer]
  const budget = MAX_BODY_CHARS - joinedLength(tail) - 1
  const pages: string[][] = []
  let page: string[] = []
  /** -1 while empty: the first line adds no newline. */
  let used = -1
  const add = (line: string) => {
    page.push(line)
    used += 1 + gsm7Length(line)
  }
  const turn = () => {
    pages.push(page)
    page = []
    used = -1
  }
  for (let line of screen.lines) {
    for (;;) {
      const room = budget - used - 1
      const length = gsm7Length(line)
      if (length <= room) {
        // A blank line separates lines on a page; at the top of one it would separate nothing.
        if (line !== '' || page.length > 0) add(line)
        break
      }
      let head = ''
      let rest = line
      if (page.length === 0) [head, rest] = splitAt(line, room)
      else if (length >= PARAGRAPH && !OPTION.test(line)) {
        const [piece, after] = splitAt(line, room, false)
        if (gsm7Length(piece) >= MIN_PIECE) [head, rest] = [piece, after]
      }
      if (head !== '') add(head)
      turn()
      line = rest
      if (line === '') break
    }
  }
  if (page.length > 0) pages.push(page)
  const last = pages.length - 1
  return pages.map((lines, index) => [...lines, ...(index < last ? tail : screen.footer)].join('\n'))
}

/** Last resort for END texts; the built-in screens never reach it. */
function truncate (text: string): string {
  const pieces = wrap(text.replace(/\n/g, ' '), MAX_BODY_CHARS - 3)
  return `${pieces[0] ?? ''}...`
}

const LOOK_ALIKES: Array<[string, string]> = [
  ['\u2018\u2019\u201A\u201B\u2032`', '\''],
  ['\u201C\u201D\u201E\u2033', '"'],
  ['\u2013\u2014\u2212\u2022\u00B7', '-'],
  ['\u2026', '...'],
  ['\u00A0\t\r\n', ' ']
]
const PLAIN = new Map(LOOK_ALIKES.flatMap(([chars, plain]) => [...chars].map((c) => [c, plain] as const)))

/** Keeps a screen to one 7-bit message: look-alikes replaced, accents and Markdown dropped. */
export function plainGsm7 (text: string): string {
  let out = ''
  for (const char of text.normalize('NFKD').replace(/\*\*|__|^#+ /gm, '')) {
    const replaced = PLAIN.get(char) ?? char
    for (const c of replaced) if (isGsm7(c)) out += c
  }
  return out.replace(/\s+/g, ' ').trim()
}

export function shorten (text: string, max: number): string {
  if (text.length <= max) return text
  const head = text.slice(0, max - 3)
  const space = head.lastIndexOf(' ')
  return `${space > max / 2 ? head.slice(0, space) : head}...`
}
