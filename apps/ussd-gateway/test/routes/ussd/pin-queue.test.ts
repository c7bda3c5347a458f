import { describe, expect, it } from 'vitest'
import { atPinPrompt, createAccount, Dialer, fileApp } from '../../helper.ts'

const BUSY = 'END We are busy checking PINs. Please try again in a moment.'
const INFO = 'CON Impact Platform Information\n1. About the service\n2. Accounts and PINs\n3. Staying safe\n0. Back'

describe('PIN queue', () => {
  const ctx = fileApp({ PIN_CHECK_CONCURRENCY: '1', PIN_CHECK_QUEUE_MAX: '1' })

  it('ends PIN hops past the queue with the busy text, uncounted, while other users\' menus answer', async () => {
    const ids: string[] = []
    for (let i = 0; i < 8; i++) ids.push((await createAccount(ctx)).customerId)
    const logins = await Promise.all(ids.map(async (id) => await atPinPrompt(ctx, id)))
    const browsing = new Dialer(ctx.app)
    const [menu, ...bodies] = await Promise.all([
      browsing.dial().then(async () => await browsing.send('1')),
      ...logins.map(async (phone) => (await phone.send('48213')).body)
    ])
    expect(menu?.body).toBe(INFO)
    const busy = ids.filter((_, i) => bodies[i] === BUSY)
    const loggedIn = bodies.filter((body) => /^CON Login successful\.\nMy Account \(C[0-9A-F]{8}\)/.test(body))
    expect(busy.length).toBeGreaterThan(0)
    expect(loggedIn.length).toBeGreaterThan(0)
    expect(busy.length + loggedIn.length).toBe(ids.length)
    // A refused check compared nothing: the next wrong PIN is the first one counted.
    for (const id of busy) {
      expect((await (await atPinPrompt(ctx, id)).send('11112')).screen).toMatch(/^Incorrect PIN \(1\/3\)/)
    }
  }, 30_000)

  it('ends a sign-up with the busy text when its PIN cannot be hashed, and lets it start again', async () => {
    const waiting = await Promise.all(Array.from({ length: 6 }, async () => {
      const phone = new Dialer(ctx.app)
      await phone.dial('2*2')
      await phone.send('Amina Odhiambo')
      await phone.send('00')
      return phone
    }))
    const bodies = await Promise.all(waiting.map(async (phone) => (await phone.send('48213')).body))
    expect(bodies.filter((body) => body === BUSY).length).toBeGreaterThan(0)
    expect(bodies.filter((body) => body === BUSY || body === 'CON Confirm your 5-digit PIN:\n0. Back')).toHaveLength(6)
    expect((await createAccount(ctx)).done.screen).toMatch(/^Account created!/)
  })
})
