// What the domain-api benches register into: an organisation, a protocol verified by governance (a class of
// the registry must be) and a project of that protocol, made through the public API. The app must run with
// VERIFICATION_QUORUM=1.

export interface BenchProgramme {
  /** An API key of the registrar account `did:ixo:bench`. */
  registrarKey: string
  organisation: string
  protocol: string
  project: string
}

export async function setupProgramme (appUrl: string, adminKey: string): Promise<BenchProgramme> {
  const api = async (path: string, key: string, body: object, method = 'POST') => {
    const res = await fetch(`${appUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body)
    })
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`)
    return await res.json() as Record<string, string>
  }
  // Keys act with the roles their account is granted.
  const keyOf = async (account: string, roles: string[]) => {
    await api(`/v1/accounts/${account}/roles`, adminKey, { roles }, 'PUT')
    return (await api('/v1/api-keys', adminKey, { name: `bench ${roles.join('+')}`, roles, account })).key!
  }
  const registrarKey = await keyOf('did:ixo:bench', ['registrar'])
  const voterKey = await keyOf('did:ixo:bench-voter', ['voter'])
  const complianceKey = await keyOf('did:ixo:bench-compliance', ['compliance'])
  const organisation = (await api('/v1/domains', registrarKey, {
    type: 'Organisation', class: 'did:ixo:protocol/dao', metadata: { name: 'Clean Cooking Programme' }
  })).did!
  const protocol = (await api('/v1/domains', registrarKey, {
    type: 'Protocol', class: 'did:ixo:protocol/project', metadata: { name: 'Clean cooking protocol' }
  })).did!
  const proposal = await api(`/v1/domains/${protocol}/verification-proposals`, complianceKey, {
    evidence: 'https://example.org/bench-protocol'
  })
  await api(`/v1/verification-proposals/${proposal.id!}/votes`, voterKey, { vote: 'yes' })
  const project = (await api('/v1/domains', registrarKey, {
    type: 'Project', class: protocol, links: { organisation }, metadata: { name: 'Clean Cooking Project' }
  })).did!
  return { registrarKey, organisation, protocol, project }
}
