import { createApp, type App } from '@impact/service-kit'
import type { Config } from './config.ts'
import { openAppDatabase } from './db/open.ts'

export const APP_NAME = 'oracle-runtime'

/** Builds oracle-runtime unlistened; tests and server.ts share it. */
export async function buildApp (config: Config): Promise<App> {
  const database = await openAppDatabase(config)
  try {
    const app = await createApp({
      config,
      docs: { title: 'Oracle runtime', version: '0.1.0', description: 'Chat sessions, messages (JSON or SSE), UCAN auth, socket.io events and plugins for AI oracle agents.' },
      health: {
        checks: { database: async () => { await database.ping() } },
        landing: { message: 'oracle-runtime is running' }
      }
    })
    app.addHook('onClose', async () => { await database.close() })
    return app
  } catch (error) {
    await database.close()
    throw error
  }
}
