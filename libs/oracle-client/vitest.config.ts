import { defineProject } from 'vitest/config'

export default defineProject({
  ssr: { resolve: { conditions: ['@impact/source'] } },
  test: { name: 'oracle-client', environment: 'node' }
})
