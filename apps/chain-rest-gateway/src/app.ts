import { createApp, type App } from '@impact/service-kit'
import type { Config } from './config.ts'

export const APP_NAME = 'chain-rest-gateway'

/** Builds chain-rest-gateway unlistened; tests and server.ts share it. */
export async function buildApp (config: Config): Promise<App> {
  return await createApp({
    config,
    docs: { title: 'Chain REST gateway', version: '0.1.0', description: 'HTTP GET routes transcoded onto the gRPC query services of a Cosmos-SDK protocol node.' },
    health: { landing: { message: 'chain-rest-gateway is running' } }
  })
}
