import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTestDatabase, type TestDatabase } from '@impact/persistence/testing'
import { until } from '@impact/service-kit/testing'
import type { SharedState } from '@impact/shared-state'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHarness, testSharedState, type Harness, type TestSharedState } from '../support/harness.ts'
import { slowAnswer, startLoopbackLlm, type LoopbackLlm } from '../support/loopback-llm.ts'
import { severable } from '../support/severable.ts'
import { openStream } from '../support/sse-client.ts'

const servers = (process.env.DATABASE_URL ?? '') !== '' && (process.env.REDIS_URL ?? '') !== ''

const longAnswer = slowAnswer(500)

describe('a turn lease whose owner is gone', () => {
  let llm: LoopbackLlm
  let shared: TestSharedState
  let state: SharedState
  let database: TestDatabase
  let dataDir: string
  const harnesses: Harness[] = []
  const replica = async (view: SharedState, key?: string, ownerTtlMs = 1000) => {
    const env: Record<string, string> = { LLM_BASE_URL: llm.url, DATA_DIR: dataDir }
    env.TURN_OWNER_TTL_MS = String(ownerTtlMs)
    if (key !== undefined) env.ORACLE_PRIVATE_KEY = key
    const h = await createHarness(env, { sharedState: view }, { database, prefix: 'unused:' })
    harnesses.push(h)
    return h
  }
  /** A user's session on `h`, in the middle of a long streamed answer. */
  const midTurn = async (h: Harness) => {
    const user = await h.user()
    const sessionId = await h.newSession(user.headers)
    llm.enqueue(longAnswer)
    const base = await h.app.listen({ host: '127.0.0.1', port: 0 })
    const stream = await openStream(base, sessionId, user.headers, { message: 'long' })
    await stream.until('message')
    return { user, sessionId, stream }
  }

  beforeAll(async () => {
    llm = await startLoopbackLlm()
    shared = testSharedState('oracle-takeover')
    state = shared.state
    database = await createTestDatabase()
    dataDir = await mkdtemp(join(tmpdir(), 'oracle-takeover-'))
  })
  afterAll(async () => {
    for (const h of harnesses) await h.close()
    await database?.drop()
    await shared?.drop()
    await llm?.close()
    await rm(dataDir, { recursive: true, force: true })
  })

  it('is taken over by a restarted oracle within seconds, not after the lease\'s minute', async () => {
    const first = severable(state)
    const a = await replica(first.view)
    const { user, sessionId, stream } = await midTurn(a)

    // The process dies mid-turn: its lease and its liveness mark stay behind in the shared state.
    first.sever()
    await a.app.close()
    harnesses.splice(harnesses.indexOf(a), 1)
    await stream.rest()
    expect(await state.ttl(`turn:${sessionId}`)).toBeGreaterThan(30_000)

    const b = await replica(state, a.oracleKey)
    const statuses: number[] = []
    let answer: Awaited<ReturnType<typeof b.send>> | undefined
    await until(async () => {
      answer = await b.send(user.headers, sessionId, 'are you back?')
      statuses.push(answer.statusCode)
      return answer.statusCode !== 409
    }, { timeout: 10_000, interval: 100 })
    expect(statuses.slice(0, -1).every((status) => status === 409)).toBe(true)
    expect(answer?.statusCode).toBe(200)
    expect(answer?.json().message.content).toBe('Echo: are you back?')
  }, 20_000)

  it.runIf(servers)('is not taken over while its owner is alive, however long the turn', async () => {
    const a = await replica(state, undefined, 2000)
    const b = await replica(state, a.oracleKey, 2000)
    const { user, sessionId, stream } = await midTurn(a)
    // Longer than the owner's liveness TTL: only its renewal keeps the lease from being taken.
    await new Promise((resolve) => setTimeout(resolve, 2500))
    const busy = await b.send(user.headers, sessionId, 'meanwhile')
    expect(busy.json()).toMatchObject({ statusCode: 409, code: 'ORACLE_TURN_IN_PROGRESS' })
    stream.disconnect()
  }, 15_000)
})
