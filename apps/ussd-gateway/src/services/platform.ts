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
  // A project's class never changes, and its organisation stays once devices name it as parent: read once.
  const projects = new Map<string, Promise<{ class: string, organisation: string | null }>>()
  const projectOf = async (project: string, registry: PlatformClient) => {
    let known = projects.get(project)
    if (known === undefined) {
      known = registry.getDomain(project)
        .then((domain) => ({ class: domain.class, organisation: domain.organisation ?? null }))
      projects.set(project, known)
      known.catch(() => { projects.delete(project) })
    }
    return await known
  }

  return {
    configured: options.domainApiUrl !== undefined,

    as: (signer: AccountSigner): PlatformClient => client.actingAs({ signer, proof: null }),

    async deviceClass (programme: Programme, registry: PlatformClient): Promise<string> {
      if (programme.deviceClass !== undefined) return programme.deviceClass
      const project = programme.projectDid
      if (project === undefined) throw new Error(`programme ${programme.name} has no projectDid`)
      return (await projectOf(project, registry)).class
    },

    /**
     * Where a device's serial must be unique in the registry: per type within the organisation of the programme's
     * project, or per class when it has none (or the programme has no project).
     */
    async deviceScope (programme: Programme, registry: PlatformClient) {
      const project = programme.projectDid
      if (project === undefined) {
        if (programme.deviceClass === undefined) throw new Error(`programme ${programme.name} has no projectDid`)
        return { class: programme.deviceClass, organisation: null }
      }
      const known = await projectOf(project, registry)
      return { class: programme.deviceClass ?? known.class, organisation: known.organisation }
    },

    report: (error: unknown, fields: Record<string, unknown>, message: string) => {
      const { code, statusCode } = error as { code?: unknown, statusCode?: unknown }
      options.report({ ...fields, code, statusCode, reason: (error as Error).message }, message)
    }
  }
}

export type Platform = ReturnType<typeof createPlatform>
