import { defineProject } from 'vitest/config'

export default defineProject({
  ssr: { resolve: { conditions: ['@impact/source'] } },
  test: { name: 'example-oracle-chat', environment: 'node', testTimeout: 30_000, hookTimeout: 120_000 }
})
