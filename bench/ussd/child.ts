// One server of the benchmark in its own process (its own event loop, like a deployment):
//   bare    a Fastify route with form bodies answering a fixed CON text (the baseline)
//   peer    the same menu tree on ussd-builder, the peer package, a new menu per request
//   pooled  the same, with menus built once and reused one per request in flight
//   gateway the real ussd-gateway app (embedded defaults: PGlite, in-process sessions, rate limits on)
// The parent talks to it over IPC: it sends its address when listening, and answers commands
// (memory, cpu, gc, stop). Load and session set-up come from the parent, like an aggregator's traffic.
import { runInNewContext } from 'node:vm'
import { setFlagsFromString } from 'node:v8'
import Fastify from 'fastify'
import formbody from '@fastify/formbody'
import { buildApp } from '../../apps/ussd-gateway/src/app.ts'
import { loadConfig } from '../../apps/ussd-gateway/src/config.ts'
import { peerMenu, peerMenuPool, type PeerArgs } from './peer-menu.ts'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

async function bare () {
  const app = Fastify({ logger: false })
  await app.register(formbody)
  app.post('/api/ussd', async (_request, reply) => await reply.type('text/plain; charset=utf-8').send('CON Create a 5-digit PIN:\n0. Back'))
  return app
}

/** ussd-builder with a new menu per request, or (`pooled`) with menus reused one per request in flight. */
async function peer (pooled: boolean) {
  const app = Fastify({ logger: false })
  await app.register(formbody)
  const run = pooled ? peerMenuPool() : async (args: PeerArgs) => await peerMenu().run(args)
  app.post('/api/ussd', async (request, reply) => {
    const text = await run(request.body as PeerArgs)
    return await reply.type('text/plain; charset=utf-8').send(text)
  })
  return app
}

async function gateway () {
  return await buildApp(loadConfig({
    NODE_ENV: 'production',
    LOG_LEVEL: 'silent',
    DATA_DIR: 'memory://',
    PIN_ENCRYPTION_KEY: 'b'.repeat(64),
    // Limits stay on (every request is counted per IP and per phone) but high enough for the load.
    RATE_LIMIT_MAX: '100000000',
    RATE_LIMIT_PHONE_MAX: '1000',
    USSD_SESSION_TTL_SECONDS: '600',
    ...(process.env.DATABASE_URL !== undefined ? { DATABASE_URL: process.env.DATABASE_URL, MIGRATE_ON_START: 'always' } : {}),
    ...(process.env.REDIS_URL !== undefined ? { REDIS_URL: process.env.REDIS_URL, REDIS_KEY_PREFIX: `bench:${process.pid}:` } : {})
  }))
}

const target = process.argv[2] ?? 'bare'
const app = target === 'gateway' ? await gateway() : target === 'peer' || target === 'pooled' ? await peer(target === 'pooled') : await bare()
const address = await app.listen({ host: '127.0.0.1', port: 0 })

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
