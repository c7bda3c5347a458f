import { formatSigner, generateSigner, parseSigner, type OracleSigner } from '@impact/ucan/mint'
import type { Account, AccountIdentity } from '../db/accounts.repository.ts'
import { UssdAccountKeyError } from '../errors.ts'
import type { Keyring } from './pin-keyring.ts'
import { openRecord, sealRecord } from './sealed-record.ts'

/** An account's ucanto signer: it signs invocations as the account's did:key. */
export type AccountSigner = OracleSigner

/**
 * The accounts' Ed25519 keys. Each account gets its own did:key at sign-up; the private key is kept
 * sealed with the PIN keyring (AES-256-GCM, its own derived key, key id for rotation) and opened only
 * to sign for the account after a PIN login. Keys are never logged or returned by a route.
 */
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
    /** A fresh did:key and its sealed private key. */
    async create (): Promise<AccountIdentity> {
      const signer = await generateSigner()
      return { did: signer.did(), signingKeyRecord: seal(signer), signingKeyId: keyring.current.id }
    },

    /**
     * The same key sealed under the current key, when the record is under a retired one (the owner's next
     * login moves it, as for PINs); undefined when it is current, or when no configured key opens it.
     */
    resealed (account: Pick<Account, 'did' | 'signingKeyRecord' | 'signingKeyId'>) {
      const { did, signingKeyRecord } = account
      if (did === null || signingKeyRecord === null || account.signingKeyId === keyring.current.id) return undefined
      const signer = open(signingKeyRecord, did)
      return signer === undefined ? undefined : { signingKeyRecord: seal(signer), signingKeyId: keyring.current.id }
    },

    /**
     * The signer of an account, to act as it. Only for a session that proved the account's PIN. Throws
     * UssdAccountKeyError when the account has no key yet or no configured key opens it.
     */
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
