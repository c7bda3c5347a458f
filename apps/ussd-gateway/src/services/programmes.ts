import { readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { extname } from 'node:path'
import { Value } from '@sinclair/typebox/value'
import { parse as parseYaml } from 'yaml'
import type { Language } from '../db/types.ts'
import { ProgrammesFileSchema, type MenuName, type ProgrammeEntry } from '../schemas/programmes.ts'

/** What a service code offers: its name on the screens, its project, languages and menus. */
export interface Programme {
  /** The code it is dialled on; undefined for the default programme (every other code). */
  serviceCode: string | undefined
  name: string
  /** The project domain its devices belong to. */
  projectDid: string | undefined
  /** The class (protocol) of the devices registered by USSD; undefined: the project's class. */
  deviceClass: string | undefined
  /** Languages offered; the first is for phones that never chose one. */
  languages: readonly Language[]
  menus: ReadonlySet<MenuName>
  supportPhone: string | undefined
  /** What the programme calls its domains (`stove`/`stoves`), per language. */
  domainWord: Readonly<Record<Language, { one: string, many: string }>>
}

const ALL_LANGUAGES: readonly Language[] = ['en', 'sw']
const DEFAULT_WORDS = { en: { one: 'device', many: 'devices' }, sw: { one: 'kifaa', many: 'vifaa' } }
/** Menus that act on the programme's project, so a programme turning them on must name it. */
const NEEDS_PROJECT: readonly MenuName[] = ['registerStove']
const MAX_FILE_CHARS = 256 * 1024
const UNQUOTED_CODE = /^\s*\*[\d*]+#\s*:/m

/** The programme of every code without one of its own: today's menus under USSD_APP_NAME. */
export const defaultProgramme = (name: string): Programme => ({
  serviceCode: undefined,
  name,
  projectDid: undefined,
  deviceClass: undefined,
  languages: ALL_LANGUAGES,
  menus: new Set(),
  supportPhone: undefined,
  domainWord: DEFAULT_WORDS
})

const toProgramme = (serviceCode: string, entry: ProgrammeEntry): Programme => ({
  serviceCode,
  name: entry.name,
  projectDid: entry.projectDid,
  deviceClass: entry.deviceClass,
  languages: entry.languages ?? ALL_LANGUAGES,
  menus: new Set(entry.menus ?? []),
  supportPhone: entry.supportPhone,
  domainWord: { ...DEFAULT_WORDS, ...entry.domainWord }
})

export type ProgrammesRead =
  | { ok: true, programmes: ReadonlyMap<string, Programme> }
  | { ok: false, issues: string[] }

function parseText (text: string, file: string): unknown {
  if (extname(file).toLowerCase() === '.json') return JSON.parse(text)
  // YAML reads JSON too; warnings would go to the console, so only errors are raised.
  return parseYaml(text, { logLevel: 'error' })
}

/** Parses and validates a programmes file's text (`file` names it in the issues and picks JSON or YAML). */
export function parseProgrammes (text: string, file: string): ProgrammesRead {
  if (text.length > MAX_FILE_CHARS) return { ok: false, issues: [`${file}: larger than ${MAX_FILE_CHARS} characters`] }
  let value: unknown
  try {
    value = parseText(text, file)
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] ?? '' : String(error)
    // In YAML an unquoted `*384#` reads as an alias: the likeliest slip in this file.
    const hint = UNQUOTED_CODE.test(text) ? ' (quote the service codes: "*384#")' : ''
    const format = extname(file).toLowerCase() === '.json' ? 'JSON' : 'YAML'
    return { ok: false, issues: [`${file}: not valid ${format}: ${reason}${hint}`] }
  }
  const issues = new Map<string, string>()
  for (const error of Value.Errors(ProgrammesFileSchema, value)) {
    if (!issues.has(error.path)) issues.set(error.path, `${file}: ${error.path || '/'}: ${error.message}`)
  }
  if (issues.size > 0) return { ok: false, issues: [...issues.values()] }
  const entries = Object.entries((value as { programmes: Record<string, ProgrammeEntry> }).programmes)
  const refined: string[] = []
  for (const [code, entry] of entries) {
    for (const menu of NEEDS_PROJECT) {
      if (entry.menus?.includes(menu) === true && entry.projectDid === undefined) {
        refined.push(`${file}: /programmes/${code}: menu ${menu} needs a projectDid`)
      }
    }
  }
  if (refined.length > 0) return { ok: false, issues: refined }
  return { ok: true, programmes: new Map(entries.map(([code, entry]) => [code, toProgramme(code, entry)])) }
}

/** Reads and validates a programmes file at start (config.ts); a file that cannot be read is an issue too. */
export function readProgrammesFileSync (file: string): ProgrammesRead {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    return { ok: false, issues: [`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`] }
  }
  return parseProgrammes(text, file)
}

export interface ProgrammeLog {
  info: (fields: Record<string, unknown>, message: string) => void
  warn: (fields: Record<string, unknown>, message: string) => void
  error: (fields: Record<string, unknown>, message: string) => void
}

export interface CatalogOptions {
  /** USSD_PROGRAMMES_FILE; without it every code gets `fallback`. */
  file?: string | undefined
  fallback: Programme
  /** How often the file is read for changes. */
  pollMs: number
  log: ProgrammeLog
  /** Whether the gateway can serve a menu (its service is configured); a programme's other menus are hidden. */
  offers?: (menu: MenuName) => boolean
}

/**
 * The programmes of the service codes, from USSD_PROGRAMMES_FILE. The file is read again every `pollMs`; a
 * changed text is taken once it has stayed the same for one more read (an editor or a ConfigMap swap may
 * still be writing it). An invalid new file is logged and the programmes in use stay. Sessions keep only
 * their service code, so a reload changes what their next screen shows and drops none of them.
 */
export function createProgrammeCatalog (options: CatalogOptions) {
  const { file, fallback, log } = options
  let programmes: ReadonlyMap<string, Programme> = new Map()
  let codes: readonly string[] = []
  let loadedText: string | undefined
  let pendingText: string | undefined
  let timer: NodeJS.Timeout | undefined
  let reading = false

  const use = (read: Extract<ProgrammesRead, { ok: true }>, text: string) => {
    programmes = new Map([...read.programmes].map(([code, programme]) => [code, served(code, programme)]))
    codes = [...read.programmes.keys()]
    loadedText = text
  }

  /** The programme without the menus this gateway cannot serve, which are logged. */
  function served (code: string, programme: Programme): Programme {
    const offers = options.offers
    if (offers === undefined) return programme
    const hidden = [...programme.menus].filter((menu) => !offers(menu))
    if (hidden.length === 0) return programme
    log.warn({ serviceCode: code, menus: hidden }, 'programme menus hidden: their service URL is not configured')
    return { ...programme, menus: new Set([...programme.menus].filter(offers)) }
  }

  async function poll (): Promise<void> {
    if (file === undefined || reading) return
    reading = true
    try {
      const text = await readFile(file, 'utf8')
      if (text === loadedText) {
        pendingText = undefined
        return
      }
      if (text !== pendingText) {
        pendingText = text
        return
      }
      pendingText = undefined
      // Whatever it holds, this text is dealt with now: an invalid one is reported once, not on every read.
      loadedText = text
      const read = parseProgrammes(text, file)
      if (!read.ok) {
        log.error({ file, issues: read.issues }, 'programmes file invalid, keeping the programmes in use')
        return
      }
      use(read, text)
      log.info({ file, serviceCodes: codes }, 'programmes reloaded')
    } catch (error) {
      log.error({ file, code: (error as NodeJS.ErrnoException).code }, 'programmes file unreadable, keeping them')
    } finally {
      reading = false
    }
  }

  return {
    /** Reads the file (when there is one) and starts watching it; an invalid file throws its issues. */
    async start (): Promise<void> {
      if (file === undefined) return
      const text = await readFile(file, 'utf8')
      const read = parseProgrammes(text, file)
      if (!read.ok) throw new Error(`Invalid programmes file:\n  - ${read.issues.join('\n  - ')}`)
      use(read, text)
      // poll() reports its own failures and never rejects.
      timer = setInterval(() => { poll().catch(() => {}) }, options.pollMs)
      timer.unref()
    },

    /** The programme dialled on `serviceCode` (a base code, shortcut segments removed). */
    of: (serviceCode: string): Programme => programmes.get(serviceCode) ?? fallback,

    /** The service codes that have programmes (each is a base code for shortcut dials). */
    codes: (): readonly string[] => codes,

    close (): void {
      clearInterval(timer)
      timer = undefined
    }
  }
}

export type ProgrammeCatalog = ReturnType<typeof createProgrammeCatalog>
