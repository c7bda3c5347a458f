import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { formatSigner, generateSigner, loadServiceIdentity } from '../src/index.ts'

const dirs: string[] = []
afterEach(async () => { for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true }) })
const tempDir = async () => { const dir = await mkdtemp(join(tmpdir(), 'ucan-identity-')); dirs.push(dir); return dir }

describe('loadServiceIdentity', () => {
  it('uses the configured key and writes nothing', async () => {
    const signer = await generateSigner()
    const dir = await tempDir()
    const identity = await loadServiceIdentity({ privateKey: formatSigner(signer), dataDir: dir, fileName: 'key' })
    expect(identity).toMatchObject({ did: signer.did(), source: 'env' })
    await expect(stat(join(dir, 'key'))).rejects.toThrow()
  })

  it('generates a key once into the data directory, owner-only, and reuses it', async () => {
    const dir = await tempDir()
    const first = await loadServiceIdentity({ dataDir: dir, fileName: 'service-key' })
    const second = await loadServiceIdentity({ dataDir: dir, fileName: 'service-key' })
    expect(first.source).toBe('generated')
    expect(second).toMatchObject({ did: first.did, source: 'file' })
    expect((await stat(join(dir, 'service-key'))).mode & 0o777).toBe(0o600)
    expect((await readFile(join(dir, 'service-key'), 'utf8')).trim()).toBe(formatSigner(first.signer))
  })

  it('keeps a generated key in memory without a data directory', async () => {
    const a = await loadServiceIdentity({ fileName: 'key' })
    const b = await loadServiceIdentity({ fileName: 'key' })
    expect(a.did).not.toBe(b.did)
  })

  it('reports a configured DID while signing with the key', async () => {
    const signer = await generateSigner()
    const identity = await loadServiceIdentity({
      privateKey: formatSigner(signer), did: 'did:ixo:ixo1svc', fileName: 'key'
    })
    expect(identity).toMatchObject({ did: 'did:ixo:ixo1svc', keyDid: signer.did() })
  })
})
