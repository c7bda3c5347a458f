import { ADMIN_KEY, randomAccount, type TestApp } from './helper.ts'

export interface TenantKey { id: string, key: string, account: string, organisation: string | null }

/** Sends a request with `key`; the reply as sent. */
export const call = async (t: TestApp, key: string, method: string, url: string, payload?: unknown) =>
  await t.app.inject({
    method: method as 'GET',
    url,
    headers: t.auth(key),
    ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {})
  })

/** An organisation domain registered by a platform-wide registrar. */
export async function organisation (t: TestApp, registrarKey: string, name: string) {
  const body = { type: 'Organisation', class: 'did:ixo:protocol/dao', metadata: { name } }
  return (await t.createDomain(registrarKey, body)).did
}

/**
 * A fresh account of `organisation` holding `roles`, and a key of it; set up by `adminKey` (the platform admin
 * by default, who names the organisation; an organisation's admin puts the account in its own).
 */
export async function member (
  t: TestApp,
  organisation: string | null,
  roles: string[],
  adminKey = ADMIN_KEY
): Promise<TenantKey> {
  const account = randomAccount()
  const assigned = await call(t, adminKey, 'PUT', `/v1/accounts/${account}/roles`,
    { roles, ...(organisation !== null && adminKey === ADMIN_KEY ? { organisation } : {}) })
  if (assigned.statusCode !== 200) throw new Error(`setting up the account failed: ${assigned.body}`)
  const issued = await call(t, adminKey, 'POST', '/v1/api-keys', { name: 'member', roles, account })
  if (issued.statusCode !== 201) throw new Error(`issuing the key failed: ${issued.body}`)
  return issued.json() as TenantKey
}
