import { useCallback, useEffect, useState } from 'react'
import { OracleClient, OracleProvider, useSessions } from '@impact/oracle-react'
import { Chat } from './chat.tsx'
import type { DevIdentity } from './dev-identity.ts'
import { Sessions } from './sessions.tsx'

/** Where the oracle runtime is: `?oracle=<url>`, else VITE_ORACLE_URL, else the local default. */
function oracleUrl (): string {
  const fromQuery = new URLSearchParams(window.location.search).get('oracle')
  return fromQuery ?? import.meta.env.VITE_ORACLE_URL ?? 'http://127.0.0.1:3002'
}

type Setup =
  | { state: 'loading' }
  | { state: 'failed'; message: string }
  | { state: 'ready'; baseUrl: string; oracleDid: string; identity: DevIdentity }

export function App () {
  const [setup, setSetup] = useState<Setup>({ state: 'loading' })
  const [claims, setClaims] = useState<string[] | undefined>()

  useEffect(() => {
    const baseUrl = oracleUrl()
    let live = true
    // The UCAN minting stack loads as its own chunk, in parallel with the oracle's discovery.
    Promise.all([
      OracleClient.discover(baseUrl),
      import('./dev-identity.ts').then(async (m) => await m.loadDevIdentity())
    ]).then(
      ([landing, identity]) => {
        if (live) setSetup({ state: 'ready', baseUrl, oracleDid: landing.oracleDid, identity })
      },
      (error: unknown) => {
        if (live) {
          setSetup({ state: 'failed', message: `Cannot reach the oracle at ${baseUrl}: ${(error as Error).message}` })
        }
      }
    )
    return () => {
      live = false
    }
  }, [])

  if (setup.state === 'loading') return <p className='centered'>Connecting to the oracle…</p>
  if (setup.state === 'failed') return <p className='centered error' role='alert'>{setup.message}</p>
  const { baseUrl, oracleDid, identity } = setup
  return (
    <OracleProvider
      baseUrl={baseUrl}
      oracleDid={oracleDid}
      userDid={identity.did}
      createDelegation={identity.createDelegation}
      createInvocation={identity.createInvocation}
      onPaymentRequired={setClaims}
    >
      <header className='top'>
        <h1>Oracle chat</h1>
        <span className='meta' title={oracleDid}>
          oracle {baseUrl}
        </span>
        <span className='meta dev' title={identity.did}>
          development identity {identity.did.slice(0, 16)}…
        </span>
        <button
          type='button'
          className='link'
          onClick={() => {
            import('./dev-identity.ts').then(
              (m) => {
                m.forgetDevIdentity()
                window.location.reload()
              },
              () => {}
            )
          }}
        >
          new identity
        </button>
      </header>
      {claims !== undefined && (
        <div className='banner' role='alert' data-testid='payment-required'>
          Payment required before the oracle answers. Outstanding claims: {claims.join(', ')}
          <button type='button' className='link' onClick={() => { setClaims(undefined) }}>dismiss</button>
        </div>
      )}
      <Workspace />
    </OracleProvider>
  )
}

/** The session list and the open chat, sharing one list so new sessions and new titles show at once. */
function Workspace () {
  const sessions = useSessions({ pageSize: 20 })
  const [sessionId, setSessionId] = useState<string | undefined>()
  const { createSession, refresh } = sessions
  const ensureSession = useCallback(async () => {
    const session = await createSession()
    setSessionId(session.sessionId)
    return session.sessionId
  }, [createSession])
  const onTurnEnd = useCallback(() => { refresh().catch(() => {}) }, [refresh])
  return (
    <main className='layout'>
      <Sessions list={sessions} selected={sessionId} onSelect={setSessionId} />
      <Chat sessionId={sessionId} ensureSession={ensureSession} onTurnEnd={onTurnEnd} />
    </main>
  )
}
