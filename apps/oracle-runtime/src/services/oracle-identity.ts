import { MEMORY_DATA_DIR } from '@impact/persistence'
import { loadServiceIdentity, type ServiceIdentity } from '@impact/ucan'
import type { Config } from '../config.ts'

export type OracleIdentity = ServiceIdentity

/**
 * The oracle's Ed25519 identity. ORACLE_PRIVATE_KEY wins (and production requires it: config
 * refuses to start without). In development a key is generated once into DATA_DIR (the shared
 * mechanism of `@impact/ucan`); with an in-memory DATA_DIR it lives as long as the process.
 */
export async function loadOracleIdentity (
  config: Pick<Config, 'ORACLE_PRIVATE_KEY' | 'ORACLE_DID' | 'DATA_DIR'>
): Promise<OracleIdentity> {
  return await loadServiceIdentity({
    privateKey: config.ORACLE_PRIVATE_KEY,
    did: config.ORACLE_DID,
    dataDir: config.DATA_DIR === MEMORY_DATA_DIR ? undefined : config.DATA_DIR,
    fileName: 'oracle-private-key'
  })
}
