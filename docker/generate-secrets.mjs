#!/usr/bin/env node
// Writes fresh secrets for the platform, one env file per app (plus postgres.env for a bundled database):
//
//   node docker/generate-secrets.mjs [DIR] [--database-url URL] [--redis-url URL] [--force]
//
// DIR defaults to docker/secrets (what docker/compose.yaml reads). Without --database-url a password for
// the bundled PostgreSQL (compose service / dev-cluster Service `postgres`) is generated and every app
// gets a DATABASE_URL for it; without --redis-url apps use redis://redis:6379. The same files create the
// Kubernetes Secrets: `kubectl create secret generic <app>-secrets --from-env-file=DIR/<app>.env`.
// Plain JavaScript on node:crypto only, so any Node ≥ 18 runs it before anything is installed or built.
// Existing files are never overwritten without --force (rotating a PIN key or the oracle's identity
// has consequences: see the apps' READMEs).
import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** @typedef {{ values: Record<string, string>, comments: string[] }} EnvFile */

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'

/** @param {Uint8Array} bytes */
function base58btc (bytes) {
  let value = BigInt('0x' + (Buffer.from(bytes).toString('hex') || '0'))
  let out = ''
  while (value > 0n) {
    out = BASE58[Number(value % 58n)] + out
    value /= 58n
  }
  for (const byte of bytes) {
    if (byte !== 0) break
    out = '1' + out
  }
  return out
}

/**
 * A new Ed25519 identity in the form ORACLE_PRIVATE_KEY, DOMAIN_API_PRIVATE_KEY and USSD_PRIVATE_KEY take
 * (ucanto's signer format: multibase `M`, padded base64, of varint(0x1300) ‖ private key ‖ varint(0xed) ‖ public
 * key) and its did:key.
 * @returns {{ key: string, did: string }}
 */
export function generateOracleIdentity () {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  const d = Buffer.from(String(privateKey.export({ format: 'jwk' }).d), 'base64url')
  const x = Buffer.from(String(publicKey.export({ format: 'jwk' }).x), 'base64url')
  const key = 'M' + Buffer.concat([Buffer.from([0x80, 0x26]), d, Buffer.from([0xed, 0x01]), x]).toString('base64')
  return { key, did: `did:key:z${base58btc(Buffer.concat([Buffer.from([0xed, 0x01]), x]))}` }
}

/** A random token; never one a placeholder check could mistake for a hand-made value. */
function token (bytes = 32) {
  for (;;) {
    const value = randomBytes(bytes).toString('base64url')
    if (!/change|example|password|secret|admin|key|test|(.)\1{5}/i.test(value) && new Set(value).size >= 16) return value
  }
}

/**
 * The secrets of every app. Each app gets only its own (least privilege), so each has its own file.
 * @param {{ databaseUrl?: string, redisUrl?: string }} [options]
 * @returns {Record<string, EnvFile>}
 */
export function generateSecrets (options = {}) {
  /** @type {Record<string, EnvFile>} */
  const files = {}
  let databaseUrl = options.databaseUrl
  if (databaseUrl === undefined) {
    const password = randomBytes(24).toString('hex')
    files.postgres = {
      values: { POSTGRES_PASSWORD: password },
      comments: ['Password of the bundled PostgreSQL (user and database: impact)']
    }
    databaseUrl = `postgres://impact:${password}@postgres:5432/impact`
  }
  const shared = { DATABASE_URL: databaseUrl, REDIS_URL: options.redisUrl ?? 'redis://redis:6379' }
  const oracle = generateOracleIdentity()
  const registry = generateOracleIdentity()
  const gateway = generateOracleIdentity()
  files['ussd-gateway'] = {
    values: {
      PIN_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      USSD_PRIVATE_KEY: gateway.key,
      OPERATOR_TOKEN: token(),
      ...shared
    },
    comments: [
      'PIN_ENCRYPTION_KEY seals every stored PIN and account key: keep a copy; ' +
        'rotate with PIN_ENCRYPTION_PREVIOUS_KEYS',
      `USSD_PRIVATE_KEY is the gateway's identity; its DID: ${gateway.did}`
    ]
  }
  files['domain-api'] = {
    values: { DOMAIN_API_ADMIN_KEY: token(36), DOMAIN_API_PRIVATE_KEY: registry.key, ...shared },
    comments: [
      'DOMAIN_API_ADMIN_KEY is the bootstrap admin API key: it issues and revokes the other keys',
      `DOMAIN_API_PRIVATE_KEY is the registry's identity; its DID: ${registry.did}`
    ]
  }
  files['oracle-runtime'] = {
    values: { ORACLE_PRIVATE_KEY: oracle.key, CREDITS_ADMIN_TOKEN: token(), ...shared },
    comments: [
      `The oracle's DID: ${oracle.did}`,
      'LLM_API_KEY=<your model provider key> (with LLM_PROVIDER=openai and LLM_BASE_URL; else the offline agent runs)',
      'CHAIN_REST_API_KEY=<a key of the chain gateway\'s CHAIN_API_KEYS> (when it has any; used by query_chain)'
    ]
  }
  files['chain-rest-gateway'] = {
    values: { REDIS_URL: shared.REDIS_URL },
    comments: [
      'CHAIN_API_KEYS=<comma-separated keys of at least 16 characters> gates every chain route when set',
      'CHAIN_GRPC_API_KEY=<your gRPC provider key> (sent to the nodes as CHAIN_GRPC_API_KEY_HEADER metadata)'
    ]
  }
  return files
}

/** @param {EnvFile} file */
export function formatEnvFile (file) {
  const lines = file.comments.map((comment) => `# ${comment}`)
  for (const [name, value] of Object.entries(file.values)) lines.push(`${name}=${value}`)
  return lines.join('\n') + '\n'
}

/** @param {string[]} argv */
function main (argv) {
  const flag = (/** @type {string} */ name) => {
    const index = argv.indexOf(name)
    if (index === -1) return undefined
    const value = argv[index + 1]
    if (value === undefined || value.startsWith('--')) throw new Error(`${name} needs a value`)
    argv.splice(index, 2)
    return value
  }
  const databaseUrl = flag('--database-url')
  const redisUrl = flag('--redis-url')
  const force = argv.includes('--force')
  const positional = argv.filter((arg) => !arg.startsWith('--'))
  const dir = resolve(positional[0] ?? fileURLToPath(new URL('./secrets/', import.meta.url)))
  const files = generateSecrets({ databaseUrl, redisUrl })
  const existing = Object.keys(files).map((name) => join(dir, `${name}.env`)).filter((path) => existsSync(path))
  if (existing.length > 0 && !force) {
    process.stderr.write(`refusing to overwrite ${existing.join(', ')} (pass --force to replace every secret)\n`)
    process.exitCode = 1
    return
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  for (const [name, file] of Object.entries(files)) {
    writeFileSync(join(dir, `${name}.env`), formatEnvFile(file), { mode: 0o600 })
  }
  process.stdout.write(`wrote ${Object.keys(files).map((name) => `${name}.env`).join(', ')} to ${dir}\n`)
}

const invokedDirectly = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)
if (invokedDirectly) main(process.argv.slice(2))
