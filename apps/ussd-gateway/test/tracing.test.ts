import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startOtlpReceiver, until, type OtlpReceiver, type ReceivedSpan } from '@impact/service-kit/testing'
import { createAccount, Dialer, setupApp, type TestContext } from './helper.ts'
import { startOracle, startRegistry, type Registry } from './platform.ts'

const PIN = '48213'
const SERVER = 2
const CLIENT = 3
const CALLER_SPAN = '40f067aa0ba902b7'
const QUESTION = 'Is did:ixo:entity:0000000000000000000000000000e001 verified?'

describe('one USSD hop traced through the gateway, the oracle and domain-api', () => {
  let collector: OtlpReceiver
  let registry: Registry
  let oracle: Awaited<ReturnType<typeof startOracle>>
  let ctx: TestContext
  let dir: string

  beforeAll(async () => {
    collector = await startOtlpReceiver()
    const tracing = { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_BSP_SCHEDULE_DELAY: '20' }
    registry = await startRegistry(tracing)
    oracle = await startOracle({ DOMAIN_API_URL: registry.url, ...tracing })
    dir = await mkdtemp(join(tmpdir(), 'ussd-tracing-'))
    const programmes = join(dir, 'programmes.json')
    await writeFile(programmes, JSON.stringify({
      programmes: { '*384*123#': { name: 'Clean Cooking', menus: ['askAssistant'] } }
    }))
    ctx = await setupApp({
      USSD_PROGRAMMES_FILE: programmes,
      ORACLE_URL: oracle.url,
      USSD_HOP_DEADLINE_MS: '6000',
      ...tracing
    })
  })
  afterAll(async () => {
    await ctx?.close()
    await Promise.all([registry?.close(), oracle?.close(), collector?.close()])
    if (dir !== undefined) await rm(dir, { recursive: true, force: true })
  })

  /** A logged-in session at the assistant's question prompt; `headers` are what the aggregator sends from now on. */
  async function atTheAssistant (headers: Record<string, string>) {
    const { customerId } = await createAccount(ctx, { name: 'Achieng Otieno', pin: PIN })
    const phone = new Dialer(ctx.app, { headers })
    await phone.dial('2*1')
    await phone.send(customerId)
    const welcome = await phone.send(PIN)
    const choice = /(\d+)\. Ask the assistant/.exec(welcome.screen)?.[1]
    expect(choice).toBeDefined()
    expect((await phone.send(choice!)).screen).toMatch(/^Type your question/)
    return phone
  }

  const traceOf = (traceId: string) => collector.spans().filter((span) => span.traceId === traceId)
  const one = (spans: ReceivedSpan[], where: (span: ReceivedSpan) => boolean) => {
    const found = spans.filter(where)
    expect(found).toHaveLength(1)
    return found[0]!
  }

  /** The hop's span ends last, once the oracle answered; the domain-api read ended before that answer. */
  const hopDone = (traceId: string) => ['POST /api/ussd', 'GET /v1/domains/:did']
    .every((name) => traceOf(traceId).some((span) => span.name === name))

  /** The hop's spans, linked service to service: gateway → oracle → domain-api. */
  function expectLinked (spans: ReceivedSpan[], gatewayParent: string) {
    const hop = one(spans, (s) => s.service === 'ussd-gateway' && s.kind === SERVER)
    expect(hop).toMatchObject({ name: 'POST /api/ussd', parentSpanId: gatewayParent })
    const asked = one(spans, (s) => s.service === 'oracle-runtime' && s.name === 'POST /messages/:sessionId')
    const ask = one(spans, (s) => s.spanId === asked.parentSpanId)
    expect(ask).toMatchObject({ service: 'ussd-gateway', kind: CLIENT, name: 'POST', parentSpanId: hop.spanId })
    const read = one(spans, (s) => s.service === 'domain-api' && s.name === 'GET /v1/domains/:did')
    const call = one(spans, (s) => s.spanId === read.parentSpanId)
    expect(call).toMatchObject({ service: 'oracle-runtime', kind: CLIENT, name: 'GET', parentSpanId: asked.spanId })
    const services = new Set(spans.map((span) => span.service))
    expect(services).toEqual(new Set(['ussd-gateway', 'oracle-runtime', 'domain-api']))
  }

  it('starts a trace at the gateway that the oracle and domain-api continue', async () => {
    const phone = await atTheAssistant({})
    const before = new Set(collector.spans().map((span) => span.traceId))
    const answer = await phone.send(QUESTION)
    expect(answer.screen).toMatch(/get_domain/)

    const read = (s: ReceivedSpan) => s.name === 'GET /v1/domains/:did' && !before.has(s.traceId)
    await until(() => collector.spans().some(read))
    const { traceId } = collector.spans().find(read)!
    await until(() => hopDone(traceId))
    expectLinked(traceOf(traceId), '')
  })

  it('continues the aggregator\'s traceparent through all three', async () => {
    const headers: Record<string, string> = {}
    const phone = await atTheAssistant(headers)
    const traceId = '7bf92f3577b34da6a3ce929d0e0e4736'
    headers.traceparent = `00-${traceId}-${CALLER_SPAN}-01`
    expect((await phone.send(QUESTION)).screen).toMatch(/get_domain/)

    await until(() => hopDone(traceId))
    expectLinked(traceOf(traceId), CALLER_SPAN)
  })
})
