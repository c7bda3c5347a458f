// The development programme `npm start` seeds: an organisation, a clean-cooking protocol verified by
// governance vote, and a project of that protocol, made through domain-api's public HTTP API only.
import { randomUUID } from 'node:crypto'
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { apiKeyClient, type DomainApiCall } from '@impact/domain-api/api-key-client'

export interface SeedOptions {
  domainApiUrl: string
  adminKey: string
  /** Where the seeded DIDs are written (JSON). */
  programmeFile: string
  /** USSD_PROGRAMMES_FILE, written to point at the seeded project. */
  ussdProgrammesFile?: string | undefined
  nodeEnv?: string | undefined
  /** DIDs only, never a key. */
  log?: (line: string) => void
  fetch?: typeof fetch
}

export interface Programme {
  domainApiUrl: string
  organisation: string
  protocol: string
  project: string
}

export type SeedItem = 'organisation' | 'protocol' | 'project'

export interface SeedResult {
  programme: Programme
  created: Array<SeedItem | 'verification'>
}

/** A council of three decides the protocol's vote alone: three yes pass it under the default quorum or any share. */
export const SEED_OFFICE = 'did:ixo:dev-programme-office'
export const seedVoter = (n: number) => `did:ixo:dev-programme-voter-${n}`
const SEED_COUNCIL = [1, 2, 3].map(seedVoter)

/**
 * A stable alias lets a later run find each domain. The project's class is the seeded protocol, so that is verified
 * first; organisation and project stay drafts, since a link needs a live target, not a verified one.
 */
const ITEMS: Record<SeedItem, { type: string, class?: string, name: string }> = {
  organisation: { type: 'Organisation', class: 'did:ixo:protocol/dao', name: 'Clean Cooking Programme' },
  protocol: { type: 'protocol/project', class: 'did:ixo:protocol/project', name: 'Clean cooking protocol' },
  project: { type: 'Project', name: 'Clean Cooking Project' }
}
export const seedAlias = (item: SeedItem) => `urn:impact:dev-seed:${item}`

export class SeedError extends Error {
  constructor (message: string) {
    super(message)
    this.name = 'SeedError'
  }
}

interface DomainRecord {
  did: string
  status: string
  alsoKnownAs?: string[]
  verification: { proposalId: string, status: string } | null
}
interface ProposalRecord {
  id: string
  status: string
  eligible: { voters: string[] }
  votes: Array<{ account: string, supersededAt: string | null }>
}

/** Every key a run issues is revoked when it ends, so no live key outlives it unheld. */
function keyring (api: DomainApiCall, adminKey: string) {
  const issued = new Map<string, { id: string, key: string }>()
  return {
    async keyOf (account: string, roles: string[]): Promise<string> {
      const known = issued.get(account)
      if (known !== undefined) return known.key
      const granted = await api<{ roles: string[] }>('GET', `/v1/accounts/${account}/roles`, adminKey)
      const missing = roles.filter((role) => !granted.roles.includes(role))
      if (missing.length > 0) {
        await api('PUT', `/v1/accounts/${account}/roles`, adminKey, { roles: [...granted.roles, ...missing] })
      }
      const created = await api<{ id: string, key: string }>('POST', '/v1/api-keys', adminKey, {
        name: `development seed (${account})`,
        roles,
        account
      })
      issued.set(account, created)
      return created.key
    },
    async revokeAll () {
      await Promise.allSettled([...issued.values()].map(async ({ id }) =>
        await api('DELETE', `/v1/api-keys/${id}`, adminKey)))
      issued.clear()
    }
  }
}

/** Safe to run again after a run that stopped half-way. */
export async function seedProgramme (options: SeedOptions): Promise<SeedResult> {
  if (options.nodeEnv === 'production') throw new SeedError('the development seed never runs in production')
  const api = apiKeyClient(options.domainApiUrl, options.fetch)
  const admin = options.adminKey
  const keys = keyring(api, admin)
  const log = options.log ?? (() => {})
  const created: SeedResult['created'] = []
  const office = async () => await keys.keyOf(SEED_OFFICE, ['registrar', 'compliance'])

  async function find (item: SeedItem): Promise<DomainRecord | undefined> {
    let cursor: string | null = null
    do {
      const query = new URLSearchParams({ type: ITEMS[item].type, controller: SEED_OFFICE, limit: '100' })
      if (cursor !== null) query.set('cursor', cursor)
      const page: { items: DomainRecord[], nextCursor: string | null } =
        await api('GET', `/v1/domains?${query.toString()}`, admin)
      const found = page.items.find((domain) =>
        domain.status !== 'deactivated' && (domain.alsoKnownAs ?? []).includes(seedAlias(item)))
      if (found !== undefined) return found
      cursor = page.nextCursor
    } while (cursor !== null)
    return undefined
  }

  async function ensure (item: SeedItem, extra: Record<string, unknown>): Promise<DomainRecord> {
    const existing = await find(item)
    if (existing !== undefined) return existing
    const { type, class: classDid, name } = ITEMS[item]
    const domain = await api<DomainRecord>('POST', '/v1/domains', await office(), {
      type,
      ...(classDid !== undefined ? { class: classDid } : {}),
      metadata: { name, seed: 'npm start (development)' },
      alsoKnownAs: [seedAlias(item)],
      ...extra
    })
    created.push(item)
    return domain
  }

  /** Voter roles are granted before the proposal opens, since that fixes its electorate. */
  async function verify (domain: DomainRecord): Promise<void> {
    if (domain.status === 'verified') return
    let proposal: ProposalRecord
    if (domain.status === 'verification_submitted' && domain.verification !== null) {
      proposal = await api('GET', `/v1/verification-proposals/${domain.verification.proposalId}`, admin)
    } else if (domain.status === 'draft' || domain.status === 'rejected') {
      for (const voter of SEED_COUNCIL) await keys.keyOf(voter, ['voter'])
      proposal = await api('POST', `/v1/domains/${domain.did}/verification-proposals`, await office(), {
        evidence: `${options.domainApiUrl.replace(/\/+$/, '')}/1.0/identifiers/${domain.did}`,
        note: 'Development programme seeded by npm start',
        council: SEED_COUNCIL
      })
    } else {
      throw new SeedError(`the seeded protocol ${domain.did} is ${domain.status} and cannot be verified`)
    }
    created.push('verification')
    const voted = new Set(proposal.votes.filter((vote) => vote.supersededAt === null).map((vote) => vote.account))
    for (const voter of proposal.eligible.voters) {
      if (proposal.status !== 'open') break
      if (voted.has(voter) || !SEED_COUNCIL.includes(voter)) continue
      const key = await keys.keyOf(voter, ['voter'])
      proposal = await api('POST', `/v1/verification-proposals/${proposal.id}/votes`, key, { vote: 'yes' })
    }
    if (proposal.status !== 'passed') {
      throw new SeedError(`the protocol's verification proposal ${proposal.id} is ${proposal.status}, not passed`)
    }
  }

  let programme: Programme
  try {
    const organisation = await ensure('organisation', {})
    log(`organisation ${organisation.did}${created.includes('organisation') ? ' (created)' : ''}`)
    const links = { organisation: organisation.did }
    const protocol = await ensure('protocol', { links })
    await verify(protocol)
    log(`protocol     ${protocol.did} verified${created.includes('protocol') ? ' (created)' : ''}`)
    const project = await ensure('project', { class: protocol.did, links })
    log(`project      ${project.did}${created.includes('project') ? ' (created)' : ''}`)
    programme = {
      domainApiUrl: options.domainApiUrl,
      organisation: organisation.did,
      protocol: protocol.did,
      project: project.did
    }
  } finally {
    await keys.revokeAll()
  }
  await writeJson(options.programmeFile, programme)
  log(`programme    ${options.programmeFile}`)
  if (options.ussdProgrammesFile !== undefined) {
    await writeJson(options.ussdProgrammesFile, ussdProgrammes(programme))
    log(`ussd         ${options.ussdProgrammesFile} (${DEV_SERVICE_CODE})`)
  }
  return { programme, created }
}

async function writeJson (file: string, value: unknown): Promise<void> {
  await mkdir(dirname(file), { recursive: true })
  // Written whole or not at all: a reader (the USSD gateway polls its file) never sees half a file.
  const partial = `${file}.${randomUUID()}.tmp`
  await writeFile(partial, `${JSON.stringify(value, null, 2)}\n`)
  await rename(partial, file)
}

/** The code the USSD simulator dials. */
export const DEV_SERVICE_CODE = '*384*123#'

/** Without a seeded project yet, only the menus that need none. */
export function ussdProgrammes (programme?: Pick<Programme, 'project'>) {
  return {
    programmes: {
      [DEV_SERVICE_CODE]: {
        name: 'Clean Cooking',
        ...(programme !== undefined ? { projectDid: programme.project } : {}),
        languages: ['en', 'sw'],
        menus: programme !== undefined
          ? ['myDomains', 'askAssistant', 'registerStove', 'checkStove']
          : ['myDomains', 'askAssistant', 'checkStove'],
        domainWord: { en: { one: 'stove', many: 'stoves' }, sw: { one: 'jiko', many: 'majiko' } }
      }
    }
  }
}

/** The gateway refuses a missing programme file, so one exists before it starts, from an earlier seed if any. */
export async function prepareUssdProgrammes (file: string, programmeFile: string): Promise<void> {
  try {
    await readFile(file, 'utf8')
    return
  } catch {}
  let earlier: Programme | undefined
  try {
    earlier = JSON.parse(await readFile(programmeFile, 'utf8')) as Programme
  } catch {}
  await writeJson(file, ussdProgrammes(earlier))
}

/** DOMAIN_API_ADMIN_KEY, else the key a development domain-api generated into its data directory. */
export async function seedAdminKey (env: NodeJS.ProcessEnv, domainApiDataDir: string): Promise<string> {
  const configured = env.DOMAIN_API_ADMIN_KEY?.trim()
  if (configured !== undefined && configured !== '') return configured
  const file = join(domainApiDataDir, 'admin-key')
  try {
    return (await readFile(file, 'utf8')).trim()
  } catch {
    throw new SeedError(`no admin key: set DOMAIN_API_ADMIN_KEY, or let domain-api generate ${file}`)
  }
}
