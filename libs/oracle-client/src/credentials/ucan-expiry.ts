/**
 * Reads when a UCAN stops being valid, from the token itself: a base64 CAR (v1) whose root block is
 * `{ "ucan@0.9.1": CID }` pointing at the dag-cbor UCAN (`exp` in Unix seconds, `prf` links to its
 * proofs). The effective expiry is the earliest `exp` along the embedded proof chain, as the oracle
 * counts it. A minimal, bounded CAR/CBOR reader keeps the client free of the @ipld stack; it only
 * reads, never verifies (the oracle does that).
 */

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/
const MAX_TOKEN = 64 * 1024
const MAX_DEPTH = 32

interface Cid { cid: Uint8Array }
type Cbor = number | string | boolean | null | undefined | Uint8Array | Cid | Cbor[] | { [key: string]: Cbor }

class Reader {
  pos = 0
  readonly bytes: Uint8Array
  constructor (bytes: Uint8Array) {
    this.bytes = bytes
  }

  byte (): number {
    if (this.pos >= this.bytes.length) throw new RangeError('truncated')
    return this.bytes[this.pos++] as number
  }

  take (length: number): Uint8Array {
    if (length < 0 || this.pos + length > this.bytes.length) throw new RangeError('truncated')
    const out = this.bytes.subarray(this.pos, this.pos + length)
    this.pos += length
    return out
  }

  varint (): number {
    let value = 0
    for (let shift = 0; shift < 49; shift += 7) {
      const b = this.byte()
      value += (b & 0x7f) * 2 ** shift
      if ((b & 0x80) === 0) return value
    }
    throw new RangeError('varint too long')
  }

  uint (info: number): number {
    if (info < 24) return info
    if (info === 24) return this.byte()
    const size = info === 25 ? 2 : info === 26 ? 4 : info === 27 ? 8 : 0
    if (size === 0) throw new RangeError('unsupported length')
    let value = 0
    for (const b of this.take(size)) value = value * 256 + b
    return value
  }

  cbor (depth = 0): Cbor {
    if (depth > MAX_DEPTH) throw new RangeError('too deep')
    const head = this.byte()
    const major = head >> 5
    const info = head & 0x1f
    switch (major) {
      case 0: return this.uint(info)
      case 1: return -1 - this.uint(info)
      case 2: return this.take(this.uint(info))
      case 3: return new TextDecoder().decode(this.take(this.uint(info)))
      case 4: {
        const length = this.uint(info)
        const items: Cbor[] = []
        for (let i = 0; i < length; i++) items.push(this.cbor(depth + 1))
        return items
      }
      case 5: {
        const length = this.uint(info)
        const map: Record<string, Cbor> = {}
        for (let i = 0; i < length; i++) {
          const key = this.cbor(depth + 1)
          map[typeof key === 'string' ? key : String(key)] = this.cbor(depth + 1)
        }
        return map
      }
      case 6: {
        const tag = this.uint(info)
        const value = this.cbor(depth + 1)
        // Tag 42 is a CID: its bytes carry a leading 0x00 (the identity multibase prefix).
        return tag === 42 && value instanceof Uint8Array ? { cid: value.subarray(1) } : value
      }
      default: {
        if (info === 20) return false
        if (info === 21) return true
        if (info === 22) return null
        if (info === 23) return undefined
        if (info === 27) return new DataView(this.take(8).slice().buffer).getFloat64(0)
        if (info === 26) return new DataView(this.take(4).slice().buffer).getFloat32(0)
        throw new RangeError('unsupported simple value')
      }
    }
  }

  /** The bytes of a CID at the current position (v0 multihash, or v1 version + codec + multihash). */
  cid (): Uint8Array {
    const start = this.pos
    if (this.bytes[start] === 0x12 && this.bytes[start + 1] === 0x20) {
      this.take(34)
    } else {
      this.varint()
      this.varint()
      this.varint()
      this.take(this.varint())
    }
    return this.bytes.subarray(start, this.pos)
  }
}

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
const isCid = (value: Cbor): value is Cid =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && (value as Cid).cid instanceof Uint8Array

function base64ToBytes (token: string): Uint8Array {
  if (token.length === 0 || token.length > MAX_TOKEN || !BASE64.test(token)) throw new TypeError('not a base64 token')
  return Uint8Array.from(atob(token), (c) => c.charCodeAt(0))
}

/** `exp` of a UCAN serialised as a JWT (dag-ucan keeps those as raw blocks). */
function jwtExpiry (block: Uint8Array): number | null | undefined {
  const parts = new TextDecoder().decode(block).split('.')
  if (parts.length !== 3 || parts[1] === undefined) return undefined
  const json = atob(parts[1].replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(parts[1].length / 4) * 4, '='))
  const exp = (JSON.parse(json) as { exp?: unknown }).exp
  return typeof exp === 'number' ? exp : exp === null ? null : undefined
}

/**
 * Unix seconds at which the token (and so the earliest-expiring UCAN of its embedded chain) expires;
 * `Infinity` for a token that never expires; `undefined` when the token cannot be read.
 */
export function readUcanExpiry (token: string): number | undefined {
  try {
    const reader = new Reader(base64ToBytes(token))
    const header = new Reader(reader.take(reader.varint())).cbor()
    const roots = (header as { roots?: Cbor[] } | null)?.roots
    const root = Array.isArray(roots) ? roots[0] : undefined
    if (root === undefined || !isCid(root)) return undefined
    const blocks = new Map<string, Uint8Array>()
    while (reader.pos < reader.bytes.length) {
      const section = new Reader(reader.take(reader.varint()))
      const cid = section.cid()
      blocks.set(hex(cid), section.bytes.subarray(section.pos))
    }
    const rootBlock = blocks.get(hex(root.cid))
    if (rootBlock === undefined) return undefined
    const variant = new Reader(rootBlock).cbor()
    if (typeof variant !== 'object' || variant === null || Array.isArray(variant) || variant instanceof Uint8Array) {
      return undefined
    }
    const link = Object.entries(variant).find(([key]) => key.startsWith('ucan@'))?.[1]
    if (link === undefined || !isCid(link)) return undefined

    const seen = new Set<string>()
    const expiryOf = (cid: Uint8Array, depth: number): number | undefined => {
      const key = hex(cid)
      const block = blocks.get(key)
      // A proof that is only linked, not embedded, cannot be read: the oracle refuses those anyway.
      if (block === undefined || seen.has(key) || depth > 8) return depth === 0 ? undefined : Infinity
      seen.add(key)
      // CIDv1 codec 0x55 (raw) holds a JWT-encoded UCAN; anything else is the dag-cbor form.
      const codec = cid[0] === 1 ? cid[1] : undefined
      if (codec === 0x55) {
        const exp = jwtExpiry(block)
        return exp === null ? Infinity : exp
      }
      const ucan = new Reader(block).cbor() as Record<string, Cbor> | null
      if (typeof ucan !== 'object' || ucan === null) return undefined
      let earliest = typeof ucan.exp === 'number' ? ucan.exp : ucan.exp === null ? Infinity : undefined
      if (earliest === undefined) return undefined
      for (const proof of Array.isArray(ucan.prf) ? ucan.prf : []) {
        if (!isCid(proof)) continue
        const exp = expiryOf(proof.cid, depth + 1)
        if (exp !== undefined) earliest = Math.min(earliest, exp)
      }
      return earliest
    }
    return expiryOf(link.cid, 0)
  } catch {
    return undefined
  }
}
