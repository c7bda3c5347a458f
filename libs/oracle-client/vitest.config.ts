import { defineProject } from 'vitest/config'
import { bootTimeouts, graphqlAlias, sharedWorker } from '../../vitest.shared.ts'

export default defineProject({
  ssr: { resolve: { conditions: ['@impact/source'] } },
  // The re-authorisation tests boot domain-api for the runtime's platform tools.
  resolve: { alias: graphqlAlias },
  // Each file boots a real runtime (PGlite takes seconds, more while other suites run alongside).
  test: { name: 'oracle-client', environment: 'node', ...sharedWorker, ...bootTimeouts }
})
