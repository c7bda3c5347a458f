import { findAccount, type Account } from '../../db/accounts.repository.ts'
import { UssdAccountKeyError } from '../../errors.ts'
import type { AccountSigner } from '../account-keys.ts'
import type { Session } from '../session.ts'
import { end, go, type MachineDeps, type Step } from './types.ts'

/** Forgets the logged-in account and everything done as it in this session. */
export const logOut = (s: Session) => {
  s.customerId = s.name = s.email = s.accountPhone = s.draftPin = s.pinVersion = s.roles = undefined
  s.oracleSessionId = s.questionId = s.answer = s.domains = s.domain = s.stove = undefined
}

/** A lock, PIN change or reset since the login also holds against sessions already open. */
export async function activeAccount (s: Session, deps: MachineDeps): Promise<{ account: Account } | { stop: Step }> {
  const account = s.customerId === undefined ? undefined : await findAccount(deps.db, s.customerId)
  if (account?.status === 'active' && account.pinVersion === s.pinVersion) {
    s.roles = account.roles
    return { account }
  }
  logOut(s)
  if (account === undefined) return { stop: go('accountMenu') }
  return { stop: end(account.status === 'active' ? 'services.pinReplaced' : 'services.sessionLocked') }
}

/** Only a session that proved the account's PIN gets here. */
export async function actingAccount (
  s: Session,
  deps: MachineDeps
): Promise<{ account: Account, signer: AccountSigner } | { stop: Step }> {
  const active = await activeAccount(s, deps)
  if ('stop' in active) return active
  try {
    return { account: active.account, signer: deps.keys.signerFor(active.account) }
  } catch (error) {
    if (!(error instanceof UssdAccountKeyError)) throw error
    deps.platform.report(error, { customerId: active.account.customerId }, 'account key unusable')
    return { stop: end('platform.keyUnavailable') }
  }
}
