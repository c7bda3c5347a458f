import type { FastifyRequest } from 'fastify'
import type { Kysely } from 'kysely'
import { findSession } from '../db/repositories/sessions.ts'
import type { DB } from '../db/types.ts'
import { SessionNotFoundError } from '../errors.ts'
import { callerDid } from '../plugins/ucan-auth.ts'

/** The caller's session on this oracle; someone else's is answered like a missing one (404). */
export async function callersSession (db: Kysely<DB>, oracleDid: string, request: FastifyRequest, sessionId: string) {
  const session = await findSession(db, callerDid(request), sessionId, oracleDid)
  if (session === undefined) throw new SessionNotFoundError()
  return session
}
