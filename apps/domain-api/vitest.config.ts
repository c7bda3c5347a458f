import { defineProject } from 'vitest/config'
import { bootTimeouts, graphqlAlias, sharedWorker } from '../../vitest.shared.ts'

export default defineProject({
  ssr: { resolve: { conditions: ['@impact/source'] } },
  resolve: { alias: graphqlAlias },
  test: { name: 'domain-api', environment: 'node', ...sharedWorker, ...bootTimeouts }
})
