import { existsSync } from 'node:fs'
import { chromium, type Browser, type Page } from 'playwright-core'

/** `scripts/ensure-test-tools.sh` installs it; end-to-end suites skip themselves without it. */
export const CHROMIUM_PATH = '/usr/bin/chromium'
export const hasChromium = (): boolean => existsSync(CHROMIUM_PATH)

// Headless in a container: no sandbox (no user namespaces), no GPU, nothing reaching out to Google services.
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync'
]

export interface ChromiumPage {
  browser: Browser
  page: Page
  /** Uncaught page errors and `console.error` lines: a test asserts it stays empty. */
  errors: string[]
  close: () => Promise<void>
}

/** `playwright-core` is an optional peer dependency: only suites that drive a browser need it. */
export async function openChromium (): Promise<ChromiumPage> {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: FLAGS })
  try {
    const page = await browser.newPage()
    const errors: string[] = []
    page.on('pageerror', (error) => errors.push(error.message))
    page.on('console', (message) => { if (message.type() === 'error') errors.push(message.text()) })
    return { browser, page, errors, close: async () => { await browser.close() } }
  } catch (error) {
    await browser.close()
    throw error
  }
}
