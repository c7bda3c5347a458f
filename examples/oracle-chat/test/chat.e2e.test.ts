import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { build } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hasChromium, openChromium, type ChromiumPage } from '@impact/service-kit/testing/browser'
import { stovePlugin } from '../../../apps/oracle-runtime/test/support/stove-plugin.ts'
import { startRuntime, type RealRuntime } from '../../../libs/oracle-client/test/support/runtime.ts'
import { serveStatic } from './static-server.ts'

const root = join(import.meta.dirname, '..')

// Chromium comes from Debian's package (scripts/ensure-test-tools.sh in CI); without it this file is skipped.
describe.runIf(hasChromium())('oracle chat example in headless Chromium', () => {
  // A plugin tool marked as a side effect: the agent's calls of it wait for the user's approval.
  const stoves = stovePlugin()
  let runtime: RealRuntime
  let site: Awaited<ReturnType<typeof serveStatic>>
  let outDir: string
  let chromium: ChromiumPage
  let page: Page

  beforeAll(async () => {
    outDir = await mkdtemp(join(tmpdir(), 'oracle-chat-'))
    const [started] = await Promise.all([
      startRuntime({}, { plugins: [stoves.plugin] }),
      build({
        configFile: join(root, 'vite.config.ts'),
        root,
        logLevel: 'warn',
        build: { outDir, emptyOutDir: true, sourcemap: false }
      })
    ])
    runtime = started
    site = await serveStatic(outDir)
    chromium = await openChromium()
    page = chromium.page
  })
  afterAll(async () => {
    await chromium?.close()
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
    expect(chromium.errors).toEqual([])
  })

  it('asks before a tool that changes state: Approve runs it and the answer shows its result', async () => {
    await send('register_stove {"serial":"E-1"}')
    const card = page.locator('[data-testid=approval]')
    await card.waitFor({ timeout: 15_000 })
    expect(await card.locator('.summary').textContent()).toBe('Register the stove E-1 in your name')
    expect(await status()).toBe('streaming')
    expect(stoves.runs).toEqual([])
    if (process.env.ORACLE_CHAT_SCREENSHOT !== undefined) {
      await page.screenshot({ path: process.env.ORACLE_CHAT_SCREENSHOT })
    }
    await card.locator('[data-testid=approve]').click()
    await expect.poll(lastAnswer, { timeout: 15_000 }).toContain('register_stove: registered E-1')
    await expect.poll(status, { timeout: 10_000 }).toBe('ready')
    expect(await page.locator('[data-testid=approval]').count()).toBe(0)
    expect(await page.getAttribute('[data-testid=tool-card] >> nth=-1', 'data-status')).toBe('done')
    expect(stoves.runs).toEqual([{ serial: 'E-1' }])
  })

  it('Deny with a reason: the tool never runs and the agent answers with the reason', async () => {
    await send('register_stove {"serial":"E-2"}')
    const card = page.locator('[data-testid=approval]')
    await card.waitFor({ timeout: 15_000 })
    await card.locator('[data-testid=deny-reason]').fill('that is my neighbour\'s stove')
    await card.locator('[data-testid=deny]').click()
    await expect.poll(lastAnswer, { timeout: 15_000 })
      .toContain('The user declined: that is my neighbour\'s stove. register_stove was not run.')
    await expect.poll(status, { timeout: 10_000 }).toBe('ready')
    expect(await page.locator('[data-testid=approval]').count()).toBe(0)
    expect(await page.getAttribute('[data-testid=tool-card] >> nth=-1', 'data-status')).toBe('error')
    expect(stoves.runs).toEqual([{ serial: 'E-1' }])
    expect(chromium.errors).toEqual([])
  })
})
