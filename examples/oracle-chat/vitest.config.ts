import { defineProject } from 'vitest/config'
import { sharedWorker } from '../../vitest.shared.ts'

export default defineProject({
  ssr: { resolve: { conditions: ['@impact/source'] } },
  test: { name: 'example-oracle-chat', environment: 'node', ...sharedWorker, testTimeout: 30_000, hookTimeout: 120_000 }
})
