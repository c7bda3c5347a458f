// One server of the benchmark in its own process (its own event loop, like a deployment):
//   bare     a Fastify route with form bodies answering a fixed CON text
//   read     the same plus the one indexed read a first dial needs (the phone's language), on the
//            gateway's own database code: PGlite in process, or PostgreSQL when DATABASE_URL is set
//   gateway  the real ussd-gateway app with production settings (LOG_LEVEL=warn, rate limits on, metrics
//            served on their own port)
//   gateway-unmetered  the same with METRICS_PORT=0 (no request or process metrics)
// The parent sends commands over IPC (memory, cpu, gc, stop); load comes from the parent.
import { runInNewContext } from 'node:vm'
import { setFlagsFromString } from 'node:v8'
import Fastify from 'fastify'
import formbody from '@fastify/formbody'
import { listenWithMetrics } from '@impact/service-kit'
import { formatSigner, generateSigner } from '@impact/ucan'
import { buildApp } from '../../apps/ussd-gateway/src/app.ts'
import { loadConfig } from '../../apps/ussd-gateway/src/config.ts'
import { openAppDatabase } from '../../apps/ussd-gateway/src/db/open.ts'
import { findLanguage } from '../../apps/ussd-gateway/src/db/preferences.repository.ts'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

const MENU = 'CON Welcome to Impact Platform\n1. Know More\n2. Account\n3. Language/Lugha\n*. Exit'

const target = process.argv[2] ?? 'bare'
const config = loadConfig({
  NODE_ENV: 'production',
  LOG_LEVEL: 'warn',
  DATA_DIR: 'memory://',
  PIN_ENCRYPTION_KEY: 'b'.repeat(64),
  // Production requires the gateway's own signer.
  USSD_PRIVATE_KEY: formatSigner(await generateSigner()),
  // Limits stay on (every request is counted per IP and per phone), high enough for the load.
  RATE_LIMIT_MAX: '100000000',
  RATE_LIMIT_PHONE_MAX: '1000',
  USSD_SESSION_TTL_SECONDS: '600',
  ...(target === 'gateway-unmetered' ? { METRICS_PORT: '0' } : {}),
  ...(process.env.DATABASE_URL !== undefined
    ? { DATABASE_URL: process.env.DATABASE_URL, MIGRATE_ON_START: 'always' }
    : {})
})

async function bare () {
  const app = Fastify({ logger: false })
  await app.register(formbody)
  app.post('/api/ussd', async (_request, reply) => await reply.type('text/plain; charset=utf-8').send(MENU))
  return app
}

async function read () {
  const database = await openAppDatabase(config)
  const app = Fastify({ logger: false })
  await app.register(formbody)
  app.addHook('onClose', async () => { await database.close() })
  app.post('/api/ussd', async (request, reply) => {
    const { phoneNumber } = request.body as { phoneNumber: string }
    await findLanguage(database.db, phoneNumber)
    return await reply.type('text/plain; charset=utf-8').send(MENU)
  })
  return app
}

const gateway = target.startsWith('gateway')
const app = gateway ? await buildApp(config) : target === 'read' ? await read() : await bare()
const at = { host: '127.0.0.1', port: 0 }
const { address, metricsUrl } = gateway ? await listenWithMetrics(app, at) : { address: await app.listen(at) }

function memory () {
  gc()
  gc()
  const { rss, heapUsed } = process.memoryUsage()
  return { rss, heapUsed }
}

async function handle (message: { cmd: string }): Promise<unknown> {
  if (message.cmd === 'memory') return memory()
  else if (message.cmd === 'cpu') {
    const { user, system } = process.cpuUsage()
    return user + system
  } else if (message.cmd === 'gc') gc()
  else if (message.cmd === 'metrics') return metricsUrl ?? null
  else if (message.cmd === 'stop') await app.close()
  return true
}

process.on('message', (message: { cmd: string }) => {
  const reply = (value: unknown) => {
    // After `stop` the process leaves once the answer is out.
    process.send?.({ cmd: message.cmd, value }, undefined, {}, () => { if (message.cmd === 'stop') process.exit(0) })
  }
  handle(message).then(reply, (error: Error) => reply({ error: error.message }))
})
process.send?.({ cmd: 'ready', value: address })
