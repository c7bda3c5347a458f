import { Type } from '@sinclair/typebox'
import { ToolFailure } from '@impact/oracle-runtime'
import type { ReactNode } from 'react'
import { afterAll, beforeAll } from 'vitest'
import { OracleClient, OracleProvider } from '../../src/index.ts'
import {
  startRuntime, testPlugin, type RealRuntime, type TestUser
} from '../../../oracle-client/test/support/runtime.ts'
import { stovePlugin } from '../../../../apps/oracle-runtime/test/support/stove-plugin.ts'

export const stoves = stovePlugin()

/** A tool that needs an authorisation the user never gave: it prompts for it, as the runtime's platform tools do. */
const meters = testPlugin({
  name: 'meters',
  description: 'Reads the user\'s meter, acting as the user',
  setup: ({ oracle }) => ({
    tools: [{
      name: 'read_meter',
      description: 'Reads the user\'s meter',
      parameters: Type.Object({}),
      async execute (_args: unknown, tool) {
        tool.emit('error', {
          error: 'Authorise the oracle for meter/read to let it read your meter',
          kind: 'delegation_required',
          status: 403,
          retryable: true,
          detail: { ability: 'meter/read', reason: 'no_delegation', oracleDid: oracle.did },
          sessionId: tool.sessionId,
          requestId: tool.requestId,
          timestamp: new Date().toISOString()
        })
        throw new ToolFailure('not authorised', { error: 'authorisation_required', ability: 'meter/read' })
      }
    }]
  })
})

export const ADMIN = 'react-test-operator-token'

interface WrapperExtra { onPaymentRequired?: (ids: string[]) => void, fetch?: typeof fetch }

/**
 * A real oracle runtime for the file (with the stove and meter tools) and, with `billed`, a second one that
 * charges credits and whose model provider is down.
 */
export function reactRuntimes ({ billed: withBilled = false } = {}) {
  let runtime: RealRuntime | undefined
  let billed: RealRuntime | undefined
  beforeAll(async () => {
    [runtime, billed] = await Promise.all([
      startRuntime({}, { plugins: [stoves.plugin, meters] }),
      withBilled
        ? startRuntime(
          { CREDITS_ADMIN_TOKEN: ADMIN, LLM_BASE_URL: 'http://127.0.0.1:9/v1', LLM_TIMEOUT_MS: '2000' },
          { features: { credits: true } })
        : undefined
    ])
  })
  afterAll(async () => { await Promise.all([runtime?.close(), billed?.close()]) })
  const started = (target: RealRuntime | undefined) => {
    if (target === undefined) throw new Error('the file\'s runtime is not started')
    return target
  }

  const wrapperFor = (user: TestUser, target = started(runtime), extra: WrapperExtra = {}) =>
    function Wrapper ({ children }: { children: ReactNode }) {
      return (
        <OracleProvider
          baseUrl={target.baseUrl}
          oracleDid={target.oracleDid}
          userDid={user.did}
          createDelegation={user.createDelegation}
          createInvocation={user.createInvocation}
          {...extra}
        >
          {children}
        </OracleProvider>
      )
    }
  const clientFor = (user: TestUser, target = started(runtime)) =>
    new OracleClient({
      baseUrl: target.baseUrl,
      oracleDid: target.oracleDid,
      userDid: user.did,
      createDelegation: user.createDelegation,
      createInvocation: user.createInvocation
    })
  return {
    get runtime () { return started(runtime) },
    get billed () { return started(billed) },
    wrapperFor,
    clientFor
  }
}

/**
 * A fetch that holds back the first history page it reads (its query already answered, as on a
 * slow network) until `release` is called.
 */
export function holdFirstHistoryPage () {
  let release = () => {}
  const held = new Promise<void>((resolve) => { release = resolve })
  let holding = true
  const heldFetch: typeof fetch = async (input, init) => {
    // Chosen when the request starts: of two loads in flight, the first one sent is held, whichever answers first.
    const url = new URL(input instanceof Request ? input.url : String(input))
    const hold = holding && (init?.method ?? 'GET') === 'GET' && url.pathname.endsWith('/messages')
    if (hold) holding = false
    const response = await fetch(input, init)
    if (hold) await held
    return response
  }
  return { fetch: heldFetch, release: () => { release() } }
}
