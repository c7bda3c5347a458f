import { createApp, type App } from '@impact/service-kit'
import type { Config } from './config.ts'
import { openAppDatabase } from './db/open.ts'

export const APP_NAME = 'ussd-gateway'

/** Builds ussd-gateway unlistened; tests and server.ts share it. */
export async function buildApp (config: Config): Promise<App> {
  const database = await openAppDatabase(config)
  try {
    const app = await createApp({
      config,
      docs: { title: 'USSD gateway', version: '0.1.0', description: 'USSD menus over POST /api/ussd for telecom aggregators: sessions, accounts and PINs, rate limits.' },
      health: {
        checks: { database: async () => { await database.ping() } },
        landing: { message: 'ussd-gateway is running' }
      }
    })
    app.addHook('onClose', async () => { await database.close() })
    return app
  } catch (error) {
    await database.close()
    throw error
  }
}
