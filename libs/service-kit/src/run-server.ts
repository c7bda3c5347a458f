import closeWithGrace from 'close-with-grace'
import type { FastifyInstance } from 'fastify'
import { ConfigError } from './config.ts'
import { listenWithMetrics } from './metrics/app-metrics.ts'
import { MetricsPortError } from './metrics/config.ts'

export interface RunServerOptions<C extends { HOST: string, PORT: number, SHUTDOWN_GRACE_MS: number }> {
  loadConfig: () => C
  buildApp: (config: C) => Promise<FastifyInstance>
}

/**
 * The whole of every `server.ts`: validate config, build, listen, and on SIGINT/SIGTERM drain
 * (new requests get 503 while in-flight ones finish), then close pools through `onClose` hooks.
 */
export async function runServer<C extends { HOST: string; PORT: number; SHUTDOWN_GRACE_MS: number }> (
  options: RunServerOptions<C>
): Promise<FastifyInstance | undefined> {
  let config: C
  try {
    config = options.loadConfig()
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    process.stderr.write(`${error.message}\n`)
    process.exitCode = 1
    return undefined
  }
  const app = await options.buildApp(config)
  closeWithGrace({ delay: config.SHUTDOWN_GRACE_MS }, async ({ signal, err }) => {
    if (err !== undefined) app.log.error({ err }, 'shutting down after an unexpected error')
    else app.log.info({ signal }, 'shutting down')
    await app.close()
  })
  try {
    await listenWithMetrics(app, { host: config.HOST, port: config.PORT })
  } catch (error) {
    if (!(error instanceof MetricsPortError)) throw error
    app.log.fatal(error.message)
    process.exitCode = 1
    return undefined
  }
  return app
}
