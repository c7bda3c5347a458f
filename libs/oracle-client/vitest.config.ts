import { defineProject } from 'vitest/config'

export default defineProject({
  ssr: { resolve: { conditions: ['@impact/source'] } },
  // Each file boots a real runtime (PGlite takes seconds, more while other suites run alongside).
  test: { name: 'oracle-client', environment: 'node', hookTimeout: 60_000, testTimeout: 30_000 }
})
