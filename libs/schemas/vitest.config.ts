import { defineProject } from 'vitest/config'
import { sharedWorker } from '../../vitest.shared.ts'

export default defineProject({
  ssr: { resolve: { conditions: ['@impact/source'] } },
  test: { name: 'schemas', environment: 'node', ...sharedWorker }
})
