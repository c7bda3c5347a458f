import { defineProject } from 'vitest/config'
import { bootTimeouts, sharedWorker } from '../../vitest.shared.ts'

export default defineProject({
  ssr: { resolve: { conditions: ['@impact/source'] } },
  test: { name: 'service-kit', environment: 'node', ...sharedWorker, ...bootTimeouts }
})
