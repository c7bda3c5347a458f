import { loadMigrationConfig } from './config.ts'
import { openAppDatabase } from './db/open.ts'

// Applies pending migrations and exits: the k8s migration Job and `npm run migrate` run this.
const database = await openAppDatabase({ ...loadMigrationConfig(), MIGRATE_ON_START: 'never' })
try {
  await database.migrate()
  process.stdout.write('oracle-runtime: migrations applied\n')
} finally {
  await database.close()
}
