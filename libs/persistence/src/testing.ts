export { createTestDatabase, type TestDatabase } from './testing/test-database.ts'
export { startTcpRelay, type TcpRelay } from './testing/tcp-relay.ts'
export { startPrivatePostgres, type PrivatePostgres } from './testing/private-postgres.ts'
