import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { formatSigner, generateSigner, parseSigner, type OracleSigner } from './mint.ts'

/** A service's own Ed25519 identity, the audience its callers address invocations to. */
export interface ServiceIdentity {
  signer: OracleSigner
  /** The DID callers address: a configured DID (e.g. did:ixo) or the key's did:key. */
  did: string
  /** did:key of the signing key. */
  keyDid: string
  /** Where the key came from: configuration, a file generated earlier, or generated now. */
  source: 'env' | 'file' | 'generated'
}

export interface ServiceIdentityOptions {
  /** The configured signer string (`M…`); when set it wins and nothing is written. */
  privateKey?: string | undefined
  /** The service's DID when it is not the key's did:key. */
  did?: string | undefined
  /** Where a generated key is kept; undefined keeps it in memory for the life of the process. */
  dataDir?: string | undefined
  /** File name of the generated key inside `dataDir`, e.g. `oracle-private-key`. */
  fileName: string
}

/**
 * A service's identity: the configured key, else one generated once into `dataDir` (mode 0600) so the DID
 * callers delegated to survives restarts. The key is never logged or returned as text.
 */
export async function loadServiceIdentity (options: ServiceIdentityOptions): Promise<ServiceIdentity> {
  const identity = (signer: OracleSigner, source: ServiceIdentity['source']): ServiceIdentity =>
    ({ signer, did: options.did ?? signer.did(), keyDid: signer.did(), source })
  if (options.privateKey !== undefined) return identity(parseSigner(options.privateKey), 'env')
  if (options.dataDir === undefined) return identity(await generateSigner(), 'generated')
  const dir = resolve(options.dataDir)
  const file = join(dir, options.fileName)
  try {
    return identity(parseSigner((await readFile(file, 'utf8')).trim()), 'file')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  const signer = await generateSigner()
  await mkdir(dir, { recursive: true })
  try {
    await writeFile(file, `${formatSigner(signer)}\n`, { mode: 0o600, flag: 'wx' })
  } catch (error) {
    // Another process created it first: use that one, so both agree on the DID.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
  await chmod(file, 0o600)
  return identity(parseSigner((await readFile(file, 'utf8')).trim()), 'generated')
}
