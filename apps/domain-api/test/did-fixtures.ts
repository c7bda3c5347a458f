import { generateKeyPairSync } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { base58btc } from 'multiformats/bases/base58'

/** A fresh Ed25519 public key as a multikey (what a device registers), and its did:key. */
export function ed25519Multikey () {
  const { publicKey } = generateKeyPairSync('ed25519')
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url')
  const multikey = base58btc.encode(Uint8Array.from([0xed, 0x01, ...raw]))
  return { multikey, did: `did:key:${multikey}` }
}

const CONTEXT_FILES: Record<string, string> = {
  'https://www.w3.org/ns/did/v1': 'did-v1.jsonld',
  'https://w3id.org/security/multikey/v1': 'multikey-v1.jsonld'
}

/** jsonld's document loader over the vendored official contexts: tests never reach the network. */
export async function offlineLoader (url: string) {
  const file = CONTEXT_FILES[url]
  if (file === undefined) throw new Error(`no vendored context for ${url} (tests do not fetch)`)
  const document = JSON.parse(readFileSync(new URL(`./fixtures/contexts/${file}`, import.meta.url), 'utf8')) as object
  return { contextUrl: undefined, documentUrl: url, document }
}
