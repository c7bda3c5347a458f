import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { MEMORY_DATA_DIR } from '@impact/persistence'
import { formatSigner, generateSigner, parseSigner, type OracleSigner } from '@impact/ucan'
import type { Config } from '../config.ts'

export interface OracleIdentity {
  signer: OracleSigner
  /** The DID clients address: ORACLE_DID (a did:ixo oracle) or the key's did:key. */
  did: string
  /** did:key of the signing key. */
  keyDid: string
  source: 'env' | 'file' | 'generated'
}

const KEY_FILE = 'oracle-private-key'

/**
 * The oracle's Ed25519 identity. ORACLE_PRIVATE_KEY wins (and production requires it: config
 * refuses to start without). In development a key is generated once and kept in DATA_DIR with
 * owner-only permissions, so the DID clients delegated to survives restarts; with an in-memory
 * DATA_DIR it lives as long as the process.
 */
export async function loadOracleIdentity (config: Pick<Config, 'ORACLE_PRIVATE_KEY' | 'ORACLE_DID' | 'DATA_DIR'>): Promise<OracleIdentity> {
  const identity = (signer: OracleSigner, source: OracleIdentity['source']): OracleIdentity =>
    ({ signer, did: config.ORACLE_DID ?? signer.did(), keyDid: signer.did(), source })
  if (config.ORACLE_PRIVATE_KEY !== undefined) return identity(parseSigner(config.ORACLE_PRIVATE_KEY), 'env')
  if (config.DATA_DIR === MEMORY_DATA_DIR) return identity(await generateSigner(), 'generated')
  const dir = resolve(config.DATA_DIR)
  const file = join(dir, KEY_FILE)
  try {
    return identity(parseSigner((await readFile(file, 'utf8')).trim()), 'file')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  const signer = await generateSigner()
  await mkdir(dir, { recursive: true })
  await writeFile(file, `${formatSigner(signer)}\n`, { mode: 0o600, flag: 'wx' }).catch(async (error: NodeJS.ErrnoException) => {
    // Another process created it first: use that one, so both agree on the DID.
    if (error.code !== 'EEXIST') throw error
  })
  await chmod(file, 0o600)
  return identity(parseSigner((await readFile(file, 'utf8')).trim()), 'generated')
}
