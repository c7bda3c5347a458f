import { createPlatformClient, isPlatformClientError } from '@impact/platform-client'
import { decodeBase64Car } from '@impact/ucan'
import type { PluginDefinition } from '../types.ts'
import { platformTools } from './tools.ts'

const nowSeconds = () => Math.floor(Date.now() / 1000)

/** More than talking to the oracle. */
async function usableDownstream (raw: string): Promise<boolean> {
  try {
    const delegation = await decodeBase64Car(raw)
    return delegation.expiration > nowSeconds() && delegation.capabilities.some((c) => c.with !== 'ixo:oracle')
  } catch {
    return false
  }
}

/**
 * Calls as the user: the oracle's invocation carries the user's stored delegation as proof. Without a usable
 * delegation the tool result asks the user to authorise, and their client is prompted for a fresh one.
 */
export const platformPlugin: PluginDefinition = {
  name: 'platform',
  description: 'Registry and chain tools acting as the user: search_domains, get_domain, get_verification, ' +
    'register_domain (asks for approval), query_chain',
  attributes: {
    visibility: 'always',
    stability: 'beta',
    category: 'integration',
    defaultEnabled: true,
    dependencies: [],
    requiredEnv: ['DOMAIN_API_URL']
  },
  setup ({ config, oracle, delegations, log }) {
    const platform = createPlatformClient({
      domainApiUrl: config.DOMAIN_API_URL,
      domainApiDid: config.DOMAIN_API_DID,
      chainRestUrl: config.CHAIN_REST_URL,
      chainApiKey: config.CHAIN_REST_API_KEY
    })
    const { signer } = oracle

    return {
      tools: platformTools({
        // Read at each call, so a delegation stored or revoked mid-conversation counts at once.
        asUser: async ({ did }) => platform.actingAs({ signer, proof: (await delegations.of(did))?.raw, account: did }),
        chain: config.CHAIN_REST_URL !== undefined ? platform : undefined,
        oracleDid: oracle.did,
        defaultProtocol: config.PLATFORM_DEFAULT_PROTOCOL
      }),

      // The oracle renounces at domain-api what the user revoked here, so no copy of it can be used there.
      async onDelegationRevoked ({ did, delegations: revoked }) {
        await Promise.all(revoked.map(async ({ raw, cid }) => {
          if (!await usableDownstream(raw)) return
          try {
            await platform.actingAs({ signer, proof: raw }).revoke(raw)
            log.info({ did, cid }, 'revocation forwarded to domain-api')
          } catch (error) {
            const code = isPlatformClientError(error) ? error.code : 'UNEXPECTED'
            log.warn({ did, cid, code }, 'revocation could not be forwarded to domain-api')
          }
        }))
      }
    }
  }
}
