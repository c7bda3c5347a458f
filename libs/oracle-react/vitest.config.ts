import { defaultClientConditions } from 'vite'
import { defineProject } from 'vitest/config'
import { sharedWorker } from '../../vitest.shared.ts'

// jsdom resolves like a browser; the workspace libraries are read from source in both resolvers.
export default defineProject({
  resolve: { conditions: ['@impact/source', ...defaultClientConditions] },
  ssr: { resolve: { conditions: ['@impact/source'] } },
  test: {
    ...sharedWorker,
    name: 'oracle-react',
    environment: 'jsdom',
    setupFiles: ['test/setup.ts'],
    hookTimeout: 60_000,
    testTimeout: 30_000
  }
})
