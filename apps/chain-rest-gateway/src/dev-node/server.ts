/**
 * DEVELOPMENT FIXTURE entry: runs the development chain node (src/dev-node/node.ts) that
 * `npm start` puts behind the gateway. Refuses NODE_ENV=production: it serves invented data.
 */
import { Type } from '@sinclair/typebox'
import { ConfigError, loadConfig } from '@impact/service-kit'
import { startDevNode } from './node.ts'

const DevNodeConfigSchema = Type.Object({
  NODE_ENV: Type.String({ default: 'development' }),
  HOST: Type.String({ default: '127.0.0.1' }),
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 9190, description: 'gRPC port of the development node' }),
  DEV_CHAIN_BLOCK_MS: Type.Integer({
    minimum: 0,
    default: 5000,
    description: 'One block every this many ms (0: fixed height)'
  })
})

let config
try {
  config = loadConfig(DevNodeConfigSchema, process.env, (c) =>
    c.NODE_ENV === 'production'
      ? ['the development chain node is a fixture and does not run with NODE_ENV=production']
      : []
  )
} catch (error) {
  if (!(error instanceof ConfigError)) throw error
  process.stderr.write(`${error.message}\n`)
  process.exit(1)
}

const node = await startDevNode({ host: config.HOST, port: config.PORT, blockMs: config.DEV_CHAIN_BLOCK_MS })
process.stdout.write(
  `development chain node (fixture, sample data) listening on ${node.url}, height ${node.height()}\n`
)

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    node.close().then(() => process.exit(0), () => process.exit(1))
  })
}
