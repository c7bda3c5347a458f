import { afterAll, beforeAll, expect } from 'vitest'
import { startChain, type LoopbackChain } from '@impact/chain-rest-gateway/testing'
import { startDomainApi, type LoopbackDomainApi } from '@impact/domain-api/testing'
import { createPlatformClient, type PlatformClient } from '@impact/platform-client'
import { mintDelegation } from '@impact/ucan'
import { createHarness, type Harness, type TestUser } from '../../support/harness.ts'
import { startLoopbackLlm, type LoopbackLlm } from '../../support/loopback-llm.ts'
import { stoveStatusPlugin } from '../../support/stove-status-plugin.ts'

/** A class outside this registry, of a method it allows (`DOMAIN_EXTERNAL_CLASS_METHODS`). */
export const PROTOCOL = 'did:ixo:protocol/clean-cooking'
/** An entity of the chain gateway's development node. */
export const CHAIN_ENTITY = 'did:ixo:entity:0000000000000000000000000000e001'

export interface OracleProcess { h: Harness, base: string }

interface State {
  registry: LoopbackDomainApi
  chain: LoopbackChain
  llm: LoopbackLlm
  platform: PlatformClient
  withModel?: OracleProcess | undefined
  offline?: OracleProcess | undefined
}
let state: State | undefined
const started = (): State => {
  if (state === undefined) throw new Error('the platform world is not started yet')
  return state
}
const oracleOf = (which: 'withModel' | 'offline'): OracleProcess => {
  const found = started()[which]
  if (found === undefined) throw new Error(`this file's world has no ${which} oracle`)
  return found
}

/** The platform around this file's tests: domain-api, the chain gateway, a loopback model and its users. */
export const world = {
  get registry () { return started().registry },
  get chain () { return started().chain },
  get llm () { return started().llm },
  get platform () { return started().platform },
  /** An oracle answering through the loopback model. */
  get withModel () { return oracleOf('withModel') },
  /** An oracle running the offline agent. */
  get offline () { return oracleOf('offline') }
}

/** Starts the world before this file's tests, with the oracles they use, and stops it after them. */
export function platformWorld (oracles: { withModel?: boolean, offline?: boolean } = {}) {
  beforeAll(async () => {
    const [registry, chain, llm] = await Promise.all([startDomainApi(), startChain(), startLoopbackLlm()])
    state = { registry, chain, llm, platform: createPlatformClient({ domainApiUrl: registry.url }) }
    const oracle = async (env: Record<string, string>) => {
      const h = await createHarness({ DOMAIN_API_URL: registry.url, CHAIN_REST_URL: chain.url, ...env }, {
        plugins: [stoveStatusPlugin]
      })
      return { h, base: await h.app.listen({ host: '127.0.0.1', port: 0 }) }
    }
    ;[state.withModel, state.offline] = await Promise.all([
      oracles.withModel === true ? oracle({ LLM_BASE_URL: llm.url }) : undefined,
      oracles.offline === true ? oracle({}) : undefined
    ])
  })
  afterAll(async () => {
    await Promise.all([state?.withModel?.h.close(), state?.offline?.h.close()])
    await Promise.all([state?.registry.close(), state?.chain.close(), state?.llm.close()])
  })
}

/** What the registry was sent besides `GET /` (its DID). */
export const requests = () => world.registry.seen.filter((r) => r.url !== '/').length

/** The user's delegation of `can` on their DID to the oracle (next to the oracle's own `*`), as base64. */
export async function delegationOf (user: TestUser, oracleDid: string, can = 'domain/*') {
  return await mintDelegation({
    issuer: user.signer,
    audience: oracleDid,
    capabilities: [{ can, with: user.did }, { can: '*', with: 'ixo:oracle' }]
  })
}

/** A user of `app` who stored a delegation of `can` with POST /delegation. */
export async function authorisedUser (app: { h: Harness }, can = 'domain/*') {
  const user = await app.h.user()
  const raw = await delegationOf(user, app.h.oracleDid, can)
  const res = await app.h.app.inject({ method: 'POST', url: '/delegation', headers: user.headers, payload: { raw } })
  expect(res.statusCode).toBe(200)
  return { user, raw }
}

/** What domain-api holds, read by the user themselves (self-issued invocations). */
export const asSelf = (user: TestUser) => world.platform.actingAs({ signer: user.signer, proof: null })

export const frame = (frames: Array<{ event: string, data: any }>, event: string, status?: string) =>
  frames.find((f) => f.event === event && (status === undefined || f.data.status === status))?.data

export const decide = async (app: { h: Harness }, user: TestUser, toolCallId: string, payload: object) =>
  await app.h.app.inject({ method: 'POST', url: `/approvals/${toolCallId}`, headers: user.headers, payload })
