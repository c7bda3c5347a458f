import { createApp, type App } from '@impact/service-kit'
import type { Config } from './config.ts'
import { openAppDatabase } from './db/open.ts'

export const APP_NAME = 'domain-api'

/** Builds domain-api unlistened; tests and server.ts share it. */
export async function buildApp (config: Config): Promise<App> {
  const database = await openAppDatabase(config)
  try {
    const app = await createApp({
      config,
      docs: { title: 'Domain API', version: '0.1.0', description: 'Registry of domains (DIDs of real-world entities) with API keys and verification by governance vote.' },
      health: {
        checks: { database: async () => { await database.ping() } },
        landing: { message: 'domain-api is running' }
      }
    })
    app.addHook('onClose', async () => { await database.close() })
    return app
  } catch (error) {
    await database.close()
    throw error
  }
}
