const PROFILE = 'profile="https://w3id.org/did-resolution"'

/** What the route can answer, preferred first; the bare `application/json` is for plain JSON clients. */
export const RESOLUTION_MEDIA_TYPES = [
  `application/did+ld+json;${PROFILE}`,
  `application/ld+json;${PROFILE}`,
  'application/json'
] as const
type MediaType = typeof RESOLUTION_MEDIA_TYPES[number]

const BY_TYPE: Record<string, MediaType> = {
  'application/did+ld+json': RESOLUTION_MEDIA_TYPES[0],
  'application/ld+json': RESOLUTION_MEDIA_TYPES[1],
  'application/json': RESOLUTION_MEDIA_TYPES[2],
  'application/*': RESOLUTION_MEDIA_TYPES[0],
  '*/*': RESOLUTION_MEDIA_TYPES[0]
}

/** The media type for an Accept header (RFC 9110: highest q, ties by order); undefined when none is acceptable. */
export function negotiate (accept: string | undefined): MediaType | undefined {
  if (accept === undefined || accept.trim() === '') return RESOLUTION_MEDIA_TYPES[0]
  let best: { type: MediaType, q: number } | undefined
  for (const range of accept.split(',')) {
    const [name = '', ...params] = range.split(';').map((p) => p.trim())
    const type = BY_TYPE[name.toLowerCase()]
    if (type === undefined) continue
    const qParam = params.find((p) => p.toLowerCase().startsWith('q='))
    const q = qParam !== undefined ? Number(qParam.slice(2)) : 1
    if (!(q > 0)) continue
    if (best === undefined || q > best.q) best = { type, q }
  }
  return best?.type
}
