import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import type { Page } from 'playwright-core'
import { hasChromium, openChromium, type ChromiumPage } from '@impact/service-kit/testing/browser'
import { OPERATOR_TOKEN, setupApp, withDetachedApp, type TestContext } from '../helper.ts'

// Two programmes beside the default one (*384*123# has none, so it stays Impact Platform).
const dir = await mkdtemp(join(tmpdir(), 'ussd-simulator-'))
const PROGRAMMES_FILE = join(dir, 'programmes.json')
await writeFile(PROGRAMMES_FILE, JSON.stringify({
  programmes: { '*500#': { name: 'Jiko Rewards' }, '*600#': { name: 'Clean Cooking' } }
}))
afterAll(async () => { await rm(dir, { recursive: true, force: true }) })

// Chromium comes from Debian's package (scripts/ensure-test-tools.sh in CI); without it this file is skipped.
describe.runIf(hasChromium())('phone simulator in headless Chromium', () => {
  let ctx: TestContext
  let chromium: ChromiumPage
  let page: Page
  let base: string

  beforeAll(async () => {
    ctx = await setupApp({ SIMULATOR_ENABLED: 'true', USSD_PROGRAMMES_FILE: PROGRAMMES_FILE })
    base = await ctx.app.listen({ host: '127.0.0.1', port: 0 })
    chromium = await openChromium()
    page = chromium.page
  }, 60_000)
  afterAll(async () => {
    await chromium?.close()
    await ctx?.close()
  })

  const screen = async () => (await page.locator('#display').textContent()) ?? ''
  const type = async (value: string) => {
    await page.fill('#input', value)
    await page.click('#send')
  }
  const waitFor = async (pattern: RegExp) => {
    await expect.poll(screen, { timeout: 10_000 }).toMatch(pattern)
    return await screen()
  }

  it('dials with the keypad, walks the menus, signs up and hangs up like a phone', async () => {
    const response = await page.goto(`${base}/simulator`)
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'")
    await page.fill('#phone', '+254700111222')
    for (const key of ['*', '3', '8', '4', '*', '1', '2', '3', '#']) await page.click(`[data-key="${key}"]`)
    expect(await page.inputValue('#input')).toBe('*384*123#')
    await page.click('#call')
    expect(await waitFor(/^Welcome to Impact Platform/)).toBe(
      'Welcome to Impact Platform\n1. Know More\n2. Account\n3. Language/Lugha\n*. Exit'
    )

    await type('1')
    await waitFor(/Information/)
    await type('3')
    expect(await waitFor(/^We never ask/)).toMatch(/98\. More\n0\. Back$/)
    await type('98')
    await waitFor(/^(?!We never ask)/)
    await type('*')
    await waitFor(/^Welcome/)

    await type('2')
    await waitFor(/^Account/)
    await type('2')
    await waitFor(/full name/)
    await type('Achieng Otieno')
    await waitFor(/email/)
    await type('00')
    await waitFor(/Create a 5-digit PIN/)
    await type('48213')
    await waitFor(/Confirm/)
    await type('48213')
    const created = await waitFor(/Account created!/)
    if (process.env.SIMULATOR_SCREENSHOT !== undefined) {
      await page.screenshot({ path: process.env.SIMULATOR_SCREENSHOT })
    }
    expect(created).toMatch(/Your Customer ID: C[0-9A-F]{8}/)
    expect(await page.textContent('#session-state')).toBe('Session')
    // SMS is off here: the page lists the SMS the gateway would have sent.
    const customerId = /C[0-9A-F]{8}/.exec(created)?.[0] ?? ''
    const sms = 'to +254700111222 (customerId, not sent, SMS off): ' +
      `Welcome to Impact Platform! Your Customer ID is ${customerId}.`
    await expect.poll(async () => await page.locator('#sms').textContent(), { timeout: 10_000 }).toContain(sms)

    const sessions = await ctx.app.inject({
      method: 'GET',
      url: '/api/ussd/sessions',
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}` }
    })
    expect(sessions.json().count).toBe(1)
    await page.click('#hangup')
    await waitFor(/^Session ended\./)
    await expect
      .poll(
        async () =>
          (
            await ctx.app.inject({
              method: 'GET',
              url: '/api/ussd/sessions',
              headers: { authorization: `Bearer ${OPERATOR_TOKEN}` }
            })
          ).json().count
      )
      .toBe(0)
    expect(chromium.errors).toEqual([])
  }, 30_000)

  it('shows END screens and starts over on the next call, also for shortcut dials', async () => {
    await page.goto(`${base}/simulator`)
    await page.fill('#input', '*384*123*1*2#')
    await page.click('#call')
    expect(await waitFor(/^Create an account/)).toContain('98. More')
    await type('*')
    await waitFor(/^Welcome/)
    await type('*')
    expect(await waitFor(/Goodbye/)).toBe('Thank you for using Impact Platform. Goodbye!')
    expect(await page.textContent('#session-state')).toBe('Ended')
    await page.fill('#input', '*384*123#')
    await page.click('#call')
    await waitFor(/^Welcome/)
  }, 30_000)

  it('picks a programme\'s service code from the configured ones and dials it', async () => {
    await page.goto(`${base}/simulator`)
    const options = async () => await page.locator('#programme option').allTextContents()
    await expect.poll(options).toEqual(['Any code (type it below)', '*500# - Jiko Rewards', '*600# - Clean Cooking'])
    await page.selectOption('#programme', '*600#')
    expect(await page.inputValue('#service-code')).toBe('*600#')
    expect(await screen()).toBe('Dial *600# (Clean Cooking) and press Call.')
    await page.click('#call')
    expect(await waitFor(/^Welcome to Clean/)).toBe(
      'Welcome to Clean Cooking\n1. Know More\n2. Account\n3. Language/Lugha\n*. Exit'
    )
    await type('*')
    expect(await waitFor(/Goodbye/)).toBe('Thank you for using Clean Cooking. Goodbye!')
    // A shortcut dial extends the picked code.
    await page.fill('#input', '*600*2#')
    await page.click('#call')
    expect(await waitFor(/^Account/)).toMatch(/\n3\. Forgot Customer ID\n/)
    expect(chromium.errors).toEqual([])
  }, 30_000)
})

describe('GET /simulator/programmes', () => {
  it('lists the programmes\' service codes and names for the page\'s picker', async () => {
    const ctx = await setupApp({ SIMULATOR_ENABLED: 'true', USSD_PROGRAMMES_FILE: PROGRAMMES_FILE })
    onTestFinished(ctx.close)
    const listed = await ctx.app.inject({ method: 'GET', url: '/simulator/programmes' })
    expect(listed.statusCode).toBe(200)
    expect(listed.json()).toEqual({
      programmes: [{ serviceCode: '*500#', name: 'Jiko Rewards' }, { serviceCode: '*600#', name: 'Clean Cooking' }]
    })
    const none = await setupApp({ SIMULATOR_ENABLED: 'true' })
    onTestFinished(none.close)
    expect((await none.app.inject({ method: 'GET', url: '/simulator/programmes' })).json()).toEqual({ programmes: [] })
  })
})

describe('GET /simulator', () => {
  it('is off in production unless enabled', async () => {
    for (const [enabled, status] of [
      [undefined, 404],
      ['true', 200]
    ] as const) {
      const env = { NODE_ENV: 'production', ...(enabled !== undefined ? { SIMULATOR_ENABLED: enabled } : {}) }
      await withDetachedApp(env, async (app) => {
        expect((await app.inject({ method: 'GET', url: '/simulator' })).statusCode).toBe(status)
      })
    }
  })
})
