import { defineProject } from 'vitest/config'
import { bootTimeouts } from '../../vitest.shared.ts'

export default defineProject({
  ssr: { resolve: { conditions: ['@impact/source'] } },
  test: { name: 'oracle-runtime', environment: 'node', ...bootTimeouts }
})
