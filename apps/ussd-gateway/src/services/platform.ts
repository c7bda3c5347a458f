import { createPlatformClient, type PlatformClient } from '@impact/platform-client'
import type { AccountSigner } from './account-keys.ts'
import type { Programme } from './programmes.ts'

export interface PlatformOptions {
  /** DOMAIN_API_URL; without it the registry menus are hidden. */
  domainApiUrl?: string | undefined
  /** Deadline of each registry call (a hop makes at most a few, within the hop deadline). */
  timeoutMs: number
  /** Reports failures the menus turn into a text (never a key or a token). */
  report: (fields: Record<string, unknown>, message: string) => void
}

/**
 * domain-api as the gateway's accounts see it (platform notes, flow 3). Each call acts as the logged-in
 * account: its own key signs a single-use invocation (`proof: null`, issuer and `with` the account's DID),
 * addressed to domain-api's DID from its `GET /`.
 */
export function createPlatform (options: PlatformOptions) {
  const client = createPlatformClient({ domainApiUrl: options.domainApiUrl, timeoutMs: options.timeoutMs })
  /** The class (protocol) of each project, read once: a domain's class never changes. */
  const projectClasses = new Map<string, Promise<string>>()

  return {
    /** Whether DOMAIN_API_URL is set (the registry menus are hidden otherwise). */
    configured: options.domainApiUrl !== undefined,

    /** The registry client acting as the account whose signer this is. */
    as: (signer: AccountSigner): PlatformClient => client.actingAs({ signer, proof: null }),

    /**
     * The class of the devices a programme registers: its `deviceClass`, else its project's class (the
     * programme's protocol), read from the registry once.
     */
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
