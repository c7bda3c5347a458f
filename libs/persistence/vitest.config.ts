import { defineProject } from 'vitest/config'
import { bootTimeouts, sharedWorker } from '../../vitest.shared.ts'

export default defineProject({
  ssr: { resolve: { conditions: ['@impact/source'] } },
  // Each test starts an embedded PGlite (a WASM Postgres) and migrates it: on a loaded 2-core CI
  // machine that once took over vitest's default 5 s.
  test: { name: 'persistence', environment: 'node', ...sharedWorker, ...bootTimeouts }
})
