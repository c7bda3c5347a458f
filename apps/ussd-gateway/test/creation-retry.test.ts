import type { Database } from '@impact/persistence'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DB } from '../src/db/types.ts'
import {
  atSignUpConfirmation,
  Dialer,
  openDirect,
  SESSION_STORES,
  setupRelayedApp,
  type RelayedContext
} from './helper.ts'

const UNAVAILABLE = 'END Service temporarily unavailable. Please try again later.'

// The answer to the commit of a sign-up is lost on the wire: only a PostgreSQL server behind a relay
// can do that (PGlite runs inside the app's process). Sessions in-process and, with Redis, shared.
const onServer = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== ''

describe.runIf(onServer).each(SESSION_STORES)('sign-up retried after its answer was lost, $store', ({ redis }) => {
  let ctx: RelayedContext
  let direct: Database<DB>

  beforeAll(async () => {
    ctx = await setupRelayedApp('creation', redis)
    direct = await openDirect(ctx.database)
  })
  afterAll(async () => {
    await direct?.close()
    await ctx?.close()
  })

  it('shows the account the lost hop created, and creates no second one', async () => {
    const signup = await atSignUpConfirmation(ctx)
    const lost = ctx.relay.loseReply('commit', 'COMMIT')
    expect((await signup.send('48213')).body).toBe(UNAVAILABLE)
    await lost
    const accounts = async () => await direct.db.selectFrom('ussd_accounts').select('customer_id')
      .where('phone_number', '=', signup.phoneNumber)
      .execute()
    const [created] = await accounts()
    expect(created).toBeDefined()

    // The aggregator retries the hop: the account is there, under the same id.
    const retried = await signup.post(signup.text)
    expect(retried.screen).toBe(`Account created!\nYour Customer ID: ${created?.customer_id ?? ''}\n` +
      'Keep it safe: you need it with your PIN to log in.\n1. My Account\n0. Main menu')
    expect(await accounts()).toHaveLength(1)
    expect((await signup.send('1')).screen).toMatch(/^My Account \(C[0-9A-F]{8}\)\n1\. Account details/)

    // Signing up again from the same phone is refused (one account per phone), before the name is asked.
    const again = new Dialer(ctx.app, { phoneNumber: signup.phoneNumber })
    expect((await again.dial('2*2')).body).toMatch(/^END This phone number already has an account\./)
    expect(await accounts()).toHaveLength(1)
  })
})
