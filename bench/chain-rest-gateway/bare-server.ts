// Baseline for the cached gateway: a bare Fastify route answering a fixed JSON body (read from
// the file named by BODY_FILE) on PORT, with nothing else registered.
import { readFileSync } from 'node:fs'
import Fastify from 'fastify'

// Bytes, not a string: the strictest baseline (no UTF-8 encoding per response).
const body = readFileSync(process.env.BODY_FILE ?? '')
const app = Fastify({ logger: false })
app.get('/ixo/entity/:id', async (_request, reply) => await reply.type('application/json').send(body))
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) })
process.stdout.write('ready\n')
