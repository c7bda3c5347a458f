// Oracle runtime benchmark: time to first token and token rate through the runtime (auth, DB,
// agent loop, SSE) against the same loopback OpenAI-compatible model called directly, and the
// throughput of authenticated vs public routes. Prints ratios; traffic stays on 127.0.0.1.
import { request } from 'undici'
import { generateSigner, mintInvocation } from '@impact/ucan'
import { createHarness, testPlugin } from '../../apps/oracle-runtime/test/support/harness.ts'
import { startLoopbackLlm } from '../../apps/oracle-runtime/test/support/loopback-llm.ts'
import { load, ratio, report } from '../lib.ts'

const TOKENS = 100
const ROUNDS = 30
const tokens = (pace: number) => ({ content: Array.from({ length: TOKENS }, (_, i) => `tok${i} `), delayMs: pace })

/** A protected route doing the same (no) work as the public GET /models, so the difference is UCAN auth. */
const whoamiPlugin = testPlugin({
  name: 'bench-whoami',
  description: 'Benchmark probe',
  setup: () => ({
    routes: async (app) => { app.get('/bench/whoami', async (request) => ({ did: request.auth?.did })) }
  })
})

interface Sample { ttftMs: number, tokensPerSec: number }

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? 0
}

/** Reads an SSE or OpenAI stream, timing the first and last content piece. */
async function timeStream (
  body: AsyncIterable<Buffer | string>,
  started: number,
  isToken: (line: string) => boolean
): Promise<Sample> {
  let first = 0
  let last = 0
  let count = 0
  let buffer = ''
  for await (const piece of body) {
    buffer += String(piece)
    let newline = buffer.indexOf('\n')
    while (newline >= 0) {
      const line = buffer.slice(0, newline)
      buffer = buffer.slice(newline + 1)
      newline = buffer.indexOf('\n')
      if (!isToken(line)) continue
      const now = performance.now()
      if (count === 0) first = now
      last = now
      count++
    }
  }
  return { ttftMs: first - started, tokensPerSec: count > 1 ? (count - 1) / ((last - first) / 1000) : 0 }
}

async function run () {
  let pace = 0
  const llm = await startLoopbackLlm({ defaultScript: () => tokens(pace) })
  // Embedded PGlite by default; DATABASE_URL / REDIS_URL measure against servers (a scratch database
  // is made and dropped). The harness's rate-limit budgets are above the load: paid for, never refusing.
  const h = await createHarness({ LLM_BASE_URL: llm.url, LLM_MODEL: 'loop' }, { plugins: [whoamiPlugin] })
  const { app } = h
  const engine = h.config.DATABASE_URL !== undefined ? 'PostgreSQL' : 'PGlite (embedded)'
  process.stdout.write(`oracle-runtime bench: database ${engine}, shared state ${h.runtime.state.kind}\n`)
  const base = await app.listen({ host: '127.0.0.1', port: 0 })
  const user = await generateSigner()
  const invocation = await mintInvocation({ issuer: user, audience: h.oracleDid, lifetimeSeconds: 900 })
  const headers = { authorization: `Bearer ${invocation}`, 'x-auth-type': 'ucan', 'content-type': 'application/json' }

  // The direct call sends the very request the runtime sent just before (system prompt, history,
  // tools), so both sides ask the model for the same work and the difference is the runtime's.
  const direct = async (): Promise<Sample> => {
    const body = llm.requests.at(-1)?.body ??
      { model: 'loop', stream: true, messages: [{ role: 'user', content: 'bench' }] }
    llm.requests.length = 0
    const started = performance.now()
    const res = await request(`${llm.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body)
    })
    return await timeStream(res.body, started, (line) => line.includes('"content":"tok'))
  }
  const throughRuntime = async (sessionId: string): Promise<Sample> => {
    const started = performance.now()
    const body = JSON.stringify({ message: 'bench', stream: true })
    const res = await request(`${base}/messages/${sessionId}`, { method: 'POST', headers, body })
    if (res.statusCode !== 200) throw new Error(`runtime answered ${res.statusCode}: ${await res.body.text()}`)
    return await timeStream(res.body, started, (line) => line === 'event: message')
  }
  const newSession = async () => {
    const res = await request(`${base}/sessions`, { method: 'POST', headers })
    return (await res.body.json() as { sessionId: string }).sessionId
  }

  const measure = async (label: string, paceMs: number) => {
    pace = paceMs
    const sessionId = await newSession()
    for (let i = 0; i < 3; i++) { await throughRuntime(sessionId); await direct() } // warm-up
    const d: Sample[] = []
    const r: Sample[] = []
    for (let i = 0; i < ROUNDS; i++) {
      // A fresh session every 10 turns keeps the context the model gets realistic.
      r.push(await throughRuntime(i % 10 === 0 ? await newSession() : sessionId))
      d.push(await direct())
    }
    const dTtft = median(d.map((s) => s.ttftMs))
    const rTtft = median(r.map((s) => s.ttftMs))
    const dRate = median(d.map((s) => s.tokensPerSec))
    const rRate = median(r.map((s) => s.tokensPerSec))
    report(`${label}: ${ROUNDS} turns of ${TOKENS} tokens, medians`, [
      ['time to first token, model direct (ms)', dTtft],
      ['time to first token, through runtime (ms)', rTtft],
      ['added time to first token (ms, target <= 5)', rTtft - dTtft],
      ['token rate, model direct (tokens/s)', dRate],
      ['token rate, through runtime (tokens/s)', rRate],
      ['token rate ratio runtime/direct (target >= 0.9)', ratio(rRate, dRate)]
    ])
  }

  try {
    await measure('Paced model (~2 ms per token, faster than hosted models)', 2)
    await measure('Unpaced model (as fast as loopback can write)', 0)

    const sessionId = await newSession()
    const run = async (url: string, withAuth: boolean) =>
      await load({ url: `${base}${url}`, ...(withAuth ? { headers } : {}), duration: 4, connections: 20 })
    const publicRoute = await run('/models', false)
    const authOnly = await run('/bench/whoami', true)
    const authed = await run(`/sessions/${sessionId}/run`, true)
    const authedList = await run('/sessions?limit=5', true)
    report('Route throughput (autocannon, 20 connections, 4 s each)', [
      ['public GET /models (req/s)', publicRoute.requestsPerSec],
      ['authenticated GET /bench/whoami, no DB (req/s)', authOnly.requestsPerSec],
      ['ratio authenticated / public, same work', ratio(authOnly.requestsPerSec, publicRoute.requestsPerSec)],
      ['authenticated GET /sessions/:id/run, 1 query (req/s)', authed.requestsPerSec],
      ['authenticated GET /sessions, 2 queries (req/s)', authedList.requestsPerSec],
      ['p99 latency public / whoami / run (ms)', `${publicRoute.p99} / ${authOnly.p99} / ${authed.p99}`],
      ['errors + non-2xx', [publicRoute, authOnly, authed, authedList].reduce((n, r) => n + r.errors + r.non2xx, 0)]
    ])
  } finally {
    await h.close()
    await llm.close()
  }
}

await run()
