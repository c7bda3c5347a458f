import { verifiedProtocol } from './governance.ts'
import { PROTOCOL, type TestApp } from './helper.ts'

interface Keyed { key: string }
interface Member { key: string, account: string }

/**
 * A programme as a registry holds it: a draft organisation, a verified protocol (the devices' class) and a
 * draft project of that protocol run by the organisation.
 */
export async function startProgramme (t: TestApp, keys: { registrar: Keyed, compliance: Keyed, voters: Member[] }) {
  const organisation = (await t.createDomain(keys.registrar.key, {
    type: 'Organisation', class: PROTOCOL, metadata: { name: 'Clean Cooking Programme' }
  })).did
  const protocol = await verifiedProtocol(t, keys)
  const project = (await t.createDomain(keys.registrar.key, {
    type: 'Project', class: protocol, links: { organisation }, metadata: { name: 'Clean Cooking Project' }
  })).did
  return { organisation, protocol, project }
}

export type Programme = Awaited<ReturnType<typeof startProgramme>>

/** A stove of the programme's project, as POST /v1/domains takes it. */
export const stoveOf = (programme: Programme, externalId: string, extra: Record<string, unknown> = {}) => ({
  type: 'Asset',
  class: programme.protocol,
  externalId,
  links: { parent: programme.project },
  metadata: { name: `Stove ${externalId}` },
  ...extra
})
