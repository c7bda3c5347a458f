import { formatSigner, generateSigner, parseSigner, type OracleSigner } from '@impact/ucan/mint'
import type { Account, AccountIdentity } from '../db/accounts.repository.ts'
import { UssdAccountKeyError } from '../errors.ts'
import type { Keyring } from './pin-keyring.ts'
import { openRecord, sealRecord } from './sealed-record.ts'

export type AccountSigner = OracleSigner

// Private keys stay sealed with the PIN keyring and are opened only to sign after a PIN login.
// Never log or return them.
export function createAccountKeys (keyring: Keyring) {
  const seal = (signer: AccountSigner) => sealRecord(keyring.current, 'account-key', formatSigner(signer))

  function open (record: string, did: string): AccountSigner | undefined {
    const opened = openRecord(keyring, 'account-key', record)
    if (opened === undefined) return undefined
    try {
      const signer = parseSigner(opened.plaintext)
      // A record copied onto another account's row would sign as the wrong DID.
      return signer.did() === did ? signer : undefined
    } catch {
      return undefined
    }
  }

  return {
    async create (): Promise<AccountIdentity> {
      const signer = await generateSigner()
      return { did: signer.did(), signingKeyRecord: seal(signer), signingKeyId: keyring.current.id }
    },

    /** Moves a record under a retired key to the current one at login, as for PINs. */
    resealed (account: Pick<Account, 'did' | 'signingKeyRecord' | 'signingKeyId'>) {
      const { did, signingKeyRecord } = account
      if (did === null || signingKeyRecord === null || account.signingKeyId === keyring.current.id) return undefined
      const signer = open(signingKeyRecord, did)
      return signer === undefined ? undefined : { signingKeyRecord: seal(signer), signingKeyId: keyring.current.id }
    },

    /** Only for a session that proved the account's PIN. */
    signerFor (account: Pick<Account, 'customerId' | 'did' | 'signingKeyRecord'>): AccountSigner {
      const signer = account.did === null || account.signingKeyRecord === null
        ? undefined
        : open(account.signingKeyRecord, account.did)
      if (signer === undefined) throw new UssdAccountKeyError(account.customerId)
      return signer
    }
  }
}

export type AccountKeys = ReturnType<typeof createAccountKeys>
