import { defineProject } from 'vitest/config'
import { bootTimeouts, graphqlAlias, sharedWorker } from '../../vitest.shared.ts'

// The tests boot domain-api (hence the graphql alias) and the chain gateway on loopback.
export default defineProject({
  ssr: { resolve: { conditions: ['@impact/source'] } },
  resolve: { alias: graphqlAlias },
  test: { name: 'platform-client', environment: 'node', ...sharedWorker, ...bootTimeouts }
})
