import { Type, type Static } from '@sinclair/typebox'
import { createPlatformClient, isPlatformClientError } from '@impact/platform-client'
import { ToolFailure, type PluginDefinition } from '@impact/oracle-runtime'

const Args = Type.Object({ did: Type.String({ description: 'The stove\'s DID, e.g. did:ixo:entity:…' }) })

export const stoveStatusPlugin: PluginDefinition = {
  name: 'stove-status',
  description: 'Where the user\'s stove stands in the registry',
  attributes: {
    visibility: 'always', stability: 'beta', category: 'tools', defaultEnabled: true, dependencies: [], requiredEnv: []
  },
  setup: ({ config, oracle, delegations }) => {
    const platform = createPlatformClient({ domainApiUrl: config.DOMAIN_API_URL })
    return {
      tools: [{
        name: 'stove_status',
        description: 'Status of a stove in the registry: verified, usable, whether it is the user\'s',
        parameters: Args,
        async execute ({ did }: Static<typeof Args>, tool) {
          // Acts as the user: their stored delegation is the proof of an invocation the oracle signs.
          const proof = (await delegations.of(tool.did))?.raw
          const asUser = platform.actingAs({ signer: oracle.signer, proof, account: tool.did })
          try {
            const { status, verified, usable, controllers } = await asUser.getDomain(did, { signal: tool.signal })
            return { did, status, verified, usable, yours: controllers.includes(tool.did) }
          } catch (error) {
            if (!isPlatformClientError(error)) throw error
            // Not authorised, not found, unreachable: a result the model can act on, not a crash.
            throw new ToolFailure(error.message, { error: error.code, message: error.message })
          }
        }
      }]
    }
  }
}
