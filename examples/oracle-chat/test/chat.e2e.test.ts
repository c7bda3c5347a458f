import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import { build } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startRuntime, type RealRuntime } from '../../../libs/oracle-client/test/support/runtime.ts'
import { serveStatic } from './static-server.ts'

const CHROMIUM = '/usr/bin/chromium'
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
const root = join(import.meta.dirname, '..')

// Chromium comes from Debian's package (scripts/ensure-test-tools.sh in CI); without it this file is skipped.
describe.runIf(existsSync(CHROMIUM))('oracle chat example in headless Chromium', () => {
  let runtime: RealRuntime
  let site: Awaited<ReturnType<typeof serveStatic>>
  let outDir: string
  let browser: Browser
  let page: Page
  const errors: string[] = []

  beforeAll(async () => {
    outDir = await mkdtemp(join(tmpdir(), 'oracle-chat-'))
    const [started] = await Promise.all([
      startRuntime(),
      build({
        configFile: join(root, 'vite.config.ts'),
        root,
        logLevel: 'warn',
        build: { outDir, emptyOutDir: true, sourcemap: false }
      })
    ])
    runtime = started
    site = await serveStatic(outDir)
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS })
    page = await browser.newPage()
    page.on('pageerror', (error) => errors.push(error.message))
    page.on('console', (message) => { if (message.type() === 'error') errors.push(message.text()) })
  })
  afterAll(async () => {
    await browser?.close()
    await site?.close()
    await runtime?.close()
    if (outDir !== undefined) await rm(outDir, { recursive: true, force: true })
  })

  const status = async () => await page.getAttribute('[data-testid=chat-status]', 'data-status')
  const lastAnswer = async () => (await page.locator('[data-testid=message][data-type=ai]').last().textContent()) ?? ''
  const send = async (text: string) => {
    await page.fill('#composer', text)
    await page.click('#send')
  }

  it('mints its credentials in the browser, streams an answer and lists the new session', async () => {
    await page.goto(`${site.url}/?oracle=${encodeURIComponent(runtime.baseUrl)}`)
    await page.waitForSelector('#composer')
    await send('hello from chromium')
    await expect.poll(lastAnswer, { timeout: 15_000 }).toContain('You said: "hello from chromium"')
    await expect.poll(status, { timeout: 10_000 }).toBe('ready')
    expect(await page.locator('[data-testid=message][data-type=human]').last().textContent()).toBe(
      'hello from chromium'
    )
    await expect
      .poll(async () => await page.locator('[data-testid=session]').allTextContents(), { timeout: 10_000 })
      .toEqual([expect.stringContaining('hello from chromium')])
    expect(await page.getAttribute('[data-testid=message][data-type=ai] >> nth=-1', 'data-pending')).toBe('false')
  })

  it('runs the page\'s browser tool and AG-UI action over the session socket', async () => {
    await expect
      .poll(async () => await page.textContent('[data-testid=chat-status]'), { timeout: 10_000 })
      .toContain('tools connected')
    await send('get_page_title')
    await expect.poll(lastAnswer, { timeout: 15_000 }).toContain('get_page_title: Oracle chat')
    await send('show_notice {"text":"Saved for later"}')
    await expect
      .poll(async () => await page.locator('[data-testid=notice]').allTextContents(), { timeout: 15_000 })
      .toEqual(['Saved for later'])
    await expect
      .poll(async () => await page.getAttribute('[data-testid=action-card] >> nth=-1', 'data-status'), {
        timeout: 10_000
      })
      .toBe('done')
    expect(
      await page.locator('[data-testid=message][data-type=ai]').last().locator('[data-testid=tool-card]').count()
    ).toBe(0)
    if (process.env.ORACLE_CHAT_SCREENSHOT !== undefined) {
      await page.screenshot({ path: process.env.ORACLE_CHAT_SCREENSHOT })
    }
    expect(errors).toEqual([])
  })
})
