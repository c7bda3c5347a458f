import type { FastifyReply, FastifyRequest } from 'fastify'

/** Answers pinned to a height never change: caches may keep them for a year. */
const IMMUTABLE = 'public, max-age=31536000, immutable'

/** The validator of an answer: its block height (weak: compressed variants share it). */
export const etagOf = (height: string) => `W/"${height}"`

/** Whether If-None-Match names `etag` (weak comparison, as RFC 9110 asks for GET). */
export function isFresh (request: FastifyRequest, etag: string): boolean {
  const header = request.headers['if-none-match']
  if (header === undefined || header === '') return false
  const bare = etag.replace(/^W\//, '')
  return header.split(',').some((tag) => {
    const candidate = tag.trim()
    return candidate === '*' || candidate.replace(/^W\//, '') === bare
  })
}

/**
 * Cache-Control and ETag of an answer at `height`: pinned answers are immutable, latest ones live about a
 * block (`latestMaxAgeS`, `no-cache` when 0: revalidate each time). Answers vary with the height headers.
 */
export function setCacheHeaders (reply: FastifyReply, height: string, pinned: boolean, latestMaxAgeS: number) {
  reply.header('etag', etagOf(height))
  const latest = latestMaxAgeS > 0 ? `public, max-age=${latestMaxAgeS}` : 'no-cache'
  reply.header('cache-control', pinned ? IMMUTABLE : latest)
  reply.header('vary', 'x-cosmos-block-height, grpc-metadata-x-cosmos-block-height')
}
