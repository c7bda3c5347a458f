import { createPlatformClient, type PlatformClient } from '@impact/platform-client'
import type { AccountSigner } from './account-keys.ts'
import type { Programme } from './programmes.ts'

export interface PlatformOptions {
  domainApiUrl?: string | undefined
  timeoutMs: number
  /** Never given a key or a token. */
  report: (fields: Record<string, unknown>, message: string) => void
}

/** domain-api acting as the logged-in account, whose own key signs each invocation. */
export function createPlatform (options: PlatformOptions) {
  const client = createPlatformClient({ domainApiUrl: options.domainApiUrl, timeoutMs: options.timeoutMs })
  // A domain's class never changes, so it is read once.
  const projectClasses = new Map<string, Promise<string>>()

  return {
    configured: options.domainApiUrl !== undefined,

    as: (signer: AccountSigner): PlatformClient => client.actingAs({ signer, proof: null }),

    async deviceClass (programme: Programme, registry: PlatformClient): Promise<string> {
      if (programme.deviceClass !== undefined) return programme.deviceClass
      const project = programme.projectDid
      if (project === undefined) throw new Error(`programme ${programme.name} has no projectDid`)
      let known = projectClasses.get(project)
      if (known === undefined) {
        known = registry.getDomain(project).then((domain) => domain.class)
        projectClasses.set(project, known)
        known.catch(() => { projectClasses.delete(project) })
      }
      return await known
    },

    report: (error: unknown, fields: Record<string, unknown>, message: string) => {
      const { code, statusCode } = error as { code?: unknown, statusCode?: unknown }
      options.report({ ...fields, code, statusCode, reason: (error as Error).message }, message)
    }
  }
}

export type Platform = ReturnType<typeof createPlatform>
