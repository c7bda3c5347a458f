import { pathToFileURL } from 'node:url'
import type { FastifyInstance } from 'fastify'
import { repoPath } from '../src/paths.ts'
import type { AppInfo } from '../src/apps.ts'

/** What each app needs beyond the defaults to be built in a test (in-memory database, no chain node). */
const testEnv: Record<string, Record<string, string>> = {
  'ussd-gateway': { OPERATOR_TOKEN: 'operator-token-for-route-listing' },
  'chain-rest-gateway': {
    CHAIN_DESCRIPTOR_SOURCE: 'bundled',
    CHAIN_GRPC_URL: '127.0.0.1:9',
    CHAIN_HEALTH_INTERVAL_MS: '0'
  }
}

/** Each app as its own buildApp makes it, unlistened; the caller closes them. */
export async function buildApps (apps: AppInfo[]): Promise<Map<string, FastifyInstance>> {
  const built = await Promise.all(apps.map(async (app) => {
    const { buildApp } = (await import(pathToFileURL(repoPath('apps', app.name, 'src', 'app.ts')).href)) as {
      buildApp: (config: unknown) => Promise<FastifyInstance>
    }
    const config = app.loadConfig({
      NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: 'memory://', ...testEnv[app.name]
    })
    return [app.name, await buildApp(config)] as const
  }))
  return new Map(built)
}
