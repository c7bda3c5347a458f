import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { formatSigner, generateSigner, parseSigner, type OracleSigner } from './mint.ts'

export interface ServiceIdentity {
  signer: OracleSigner
  did: string
  keyDid: string
  source: 'env' | 'file' | 'generated'
}

export interface ServiceIdentityOptions {
  /** When set it wins and nothing is written. */
  privateKey?: string | undefined
  did?: string | undefined
  /** Undefined keeps a generated key in memory only. */
  dataDir?: string | undefined
  fileName: string
}

/** A generated key is kept in `dataDir` so the DID callers delegated to survives restarts. */
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
