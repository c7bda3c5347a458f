export { createTestDatabase, type TestDatabase } from './testing/test-database.ts'
