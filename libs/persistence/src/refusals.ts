import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult, TransactionSettings } from 'kysely'
import { PersistenceError, sqlState } from './errors.ts'

/**
 * PostgreSQL refused a statement because of what it was asked to store or change (SQLSTATE classes
 * 22 and 23), not because it is unreachable: the caller's request is at fault, or it lost a race
 * with another one. `statusCode` is the HTTP answer; the message is public, the driver's stays in `cause`.
 */
export class DatabaseRefusalError extends PersistenceError {
  readonly statusCode: number
  readonly sqlState: string
  constructor (refusal: Refusal, state: string, cause: unknown) {
    super(refusal.code, refusal.message, { cause })
    this.name = 'DatabaseRefusalError'
    this.statusCode = refusal.statusCode
    this.sqlState = state
  }
}

interface Refusal { code: `PERSIST_${string}`, statusCode: number, message: string }

const REFUSALS: Array<[RegExp, Refusal]> = [
  [/^23505$/, {
    code: 'PERSIST_DUPLICATE',
    statusCode: 409,
    message: 'A record with the same identity already exists'
  }],
  [/^23503$/, {
    code: 'PERSIST_REFERENCE_GONE',
    statusCode: 409,
    message: 'A record this request refers to does not exist (any more)'
  }],
  [/^23/, {
    code: 'PERSIST_CONSTRAINT',
    statusCode: 409,
    message: 'The change conflicts with a rule of the stored data'
  }],
  [/^22/, {
    code: 'PERSIST_INVALID_VALUE',
    statusCode: 400,
    message: 'A value in the request cannot be stored (malformed, out of range or holding a NUL character)'
  }]
]

/** The error as the persistence layer reports it: a refusal of class 22 or 23 classified, anything else as it was. */
export function classifyDatabaseError (error: unknown): unknown {
  const state = sqlState(error)
  if (state === undefined || error instanceof DatabaseRefusalError) return error
  const refusal = REFUSALS.find(([pattern]) => pattern.test(state))?.[1]
  return refusal !== undefined ? new DatabaseRefusalError(refusal, state, error) : error
}

function classifyingConnection (inner: DatabaseConnection): DatabaseConnection & { inner: DatabaseConnection } {
  return {
    inner,
    async executeQuery<R> (query: CompiledQuery, options?: Parameters<DatabaseConnection['executeQuery']>[1]) {
      try {
        return await inner.executeQuery<R>(query, options)
      } catch (error) {
        throw classifyDatabaseError(error)
      }
    },
    async * streamQuery<R> (
      query: CompiledQuery,
      chunkSize: number,
      options?: Parameters<DatabaseConnection['streamQuery']>[2]
    ): AsyncIterableIterator<QueryResult<R>> {
      try {
        yield * inner.streamQuery<R>(query, chunkSize, options)
      } catch (error) {
        throw classifyDatabaseError(error)
      }
    },
    ...(inner.cancelQuery !== undefined ? { cancelQuery: inner.cancelQuery.bind(inner) } : {}),
    ...(inner.killSession !== undefined ? { killSession: inner.killSession.bind(inner) } : {}),
    ...(inner.collectSessionInfo !== undefined ? { collectSessionInfo: inner.collectSessionInfo.bind(inner) } : {})
  }
}

/** The driver's own connection behind ours (its methods rely on private fields, so they get the original). */
const unwrap = (connection: DatabaseConnection): DatabaseConnection =>
  'inner' in connection ? (connection as { inner: DatabaseConnection }).inner : connection

async function classified<T> (work: Promise<T>): Promise<T> {
  try {
    return await work
  } catch (error) {
    throw classifyDatabaseError(error)
  }
}

function classifyingDriver (inner: Driver): Driver {
  return {
    init: async (options) => { await inner.init(options) },
    acquireConnection: async (options) => classifyingConnection(await inner.acquireConnection(options)),
    beginTransaction: async (c, settings: TransactionSettings) => { await inner.beginTransaction(unwrap(c), settings) },
    // Deferred constraints and serialization failures surface at commit.
    commitTransaction: async (c) => { await classified(inner.commitTransaction(unwrap(c))) },
    rollbackTransaction: async (c) => { await inner.rollbackTransaction(unwrap(c)) },
    savepoint: async (c, name, compile) => { await inner.savepoint?.(unwrap(c), name, compile) },
    rollbackToSavepoint: async (c, name, compile) => { await inner.rollbackToSavepoint?.(unwrap(c), name, compile) },
    releaseSavepoint: async (c, name, compile) => { await inner.releaseSavepoint?.(unwrap(c), name, compile) },
    releaseConnection: async (c, options) => { await inner.releaseConnection(unwrap(c), options) },
    destroy: async (options) => { await inner.destroy(options) }
  }
}

/**
 * A dialect whose errors leave the persistence layer classified: every app answers a database
 * refusal (a NUL byte, a value out of range, a row deleted by a concurrent request) with a 4xx
 * of the platform's error contract instead of a 500.
 */
export function classifyingDialect (dialect: Dialect): Dialect {
  return {
    createDriver: () => classifyingDriver(dialect.createDriver()),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db)
  }
}
