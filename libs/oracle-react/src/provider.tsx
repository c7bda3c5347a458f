import { createContext, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react'
import { CredentialCache, OracleClient, type MintCallback, type OracleClientOptions } from '@impact/oracle-client'

export interface OracleContextValue {
  client: OracleClient
}

const OracleContext = createContext<OracleContextValue | null>(null)

export type OracleProviderProps = { children?: ReactNode } & (
  | { client: OracleClient }
  | (OracleClientOptions & { client?: undefined })
)

const identityOf = (props: OracleClientOptions) =>
  JSON.stringify([
    props.baseUrl,
    props.wsUrl,
    props.oracleDid,
    props.userDid,
    props.createInvocation !== undefined,
    props.timezone,
    props.matrix
  ])

/**
 * Given options instead of a `client`, it builds one and always calls the latest callbacks, so inline
 * functions do not rebuild the client or drop the credential cache.
 */
export function OracleProvider (props: OracleProviderProps) {
  const { children } = props
  const latest = useRef(props)
  useEffect(() => { latest.current = props })
  const [cache] = useState(() => new CredentialCache())
  const options = props.client === undefined ? props as OracleClientOptions : undefined
  const identity = options === undefined ? undefined : identityOf(options)

  const built = useMemo(() => {
    if (options === undefined) return undefined
    const current = () => latest.current as OracleClientOptions
    const createInvocation: MintCallback | undefined = options.createInvocation === undefined
      ? undefined
      : async (request) => await (current().createInvocation as MintCallback)(request)
    return new OracleClient({
      ...options,
      credentialCache: options.credentialCache ?? cache,
      createDelegation: async (request) => await current().createDelegation(request),
      createInvocation,
      onPaymentRequired: (claimIds) => { current().onPaymentRequired?.(claimIds) },
      onDelegationRefreshed: () => { current().onDelegationRefreshed?.() }
    })
    // Rebuilt only when the oracle or the user changes (`identity`); callbacks are read through `latest`.
  }, [identity, cache])

  const client = props.client ?? built as OracleClient
  const value = useMemo(() => ({ client }), [client])
  return <OracleContext.Provider value={value}>{children}</OracleContext.Provider>
}

export function useOracleContext (hook: string): OracleContextValue {
  const value = useContext(OracleContext)
  if (value === null) throw new Error(`${hook} must be used within an <OracleProvider>`)
  return value
}

export function useOracleClient (): OracleClient {
  return useOracleContext('useOracleClient').client
}
