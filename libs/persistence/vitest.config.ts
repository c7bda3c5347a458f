import { defineProject } from 'vitest/config'

export default defineProject({
  ssr: { resolve: { conditions: ['@impact/source'] } },
  // Each test starts an embedded PGlite (a WASM Postgres) and migrates it: on a loaded 2-core CI
  // machine that once took over vitest's default 5 s.
  test: { name: 'persistence', environment: 'node', testTimeout: 30_000, hookTimeout: 60_000 }
})
