/**
 * Entity types as the API accepts them and as the chain stores them (ixo `entity_type`, lower
 * case). The docs' names (Organisation, Asset/Device…) map onto the chain strings; the chain
 * strings themselves are accepted too, so what a client reads back can be sent again.
 */
const DOCS_NAMES: Record<string, string> = {
  organisation: 'dao',
  organization: 'dao',
  project: 'project',
  asset: 'asset/device',
  device: 'asset/device',
  protocol: 'protocol',
  oracle: 'oracle',
  request: 'deed/request'
}

const PROTOCOL_KINDS = [
  'claim',
  'deed',
  'dao',
  'system',
  'asset',
  'project',
  'oracle',
  'investment',
  'group',
  'request',
  'verifiableClaim',
  'verifiableCredential',
  'impact',
  'flow'
]

const CHAIN_TYPES = [
  'dao', 'dao/pod', 'dao/group',
  'project',
  'asset/device',
  'asset/collection',
  'asset/voucher',
  'asset/impactcredit',
  'asset/coin',
  'asset/data',
  'asset/learnership',
  'asset/membershipAsset',
  'protocol',
  ...PROTOCOL_KINDS.map((kind) => `protocol/${kind}`),
  'oracle',
  'oracle/evaluation',
  'deed/request',
  'deed/offer',
  'deed/subscription',
  'deed/proposal',
  'deed/flow',
  'investment',
  'group',
  'pod',
  'user',
  'agent',
  'document',
  'image',
  'text'
]

/**
 * The chain keeps a few camel-cased sub-types (asset/membershipAsset, protocol/verifiableClaim);
 * lookups fold case, and the stored form is the chain's own spelling.
 */
const CANONICAL = new Map<string, string>([
  ...CHAIN_TYPES.map((t) => [t.toLowerCase(), t] as const),
  ...Object.entries(DOCS_NAMES)
])

/** The stored (chain) form of an entity type in any accepted spelling, or undefined when unknown. */
export function canonicalEntityType (input: string): string | undefined {
  return CANONICAL.get(input.trim().toLowerCase().replace(/\s*\/\s*/g, '/'))
}

export const isProtocolType = (type: string) => type === 'protocol' || type.startsWith('protocol/')

export const ACCEPTED_TYPE_NAMES = [
  'Organisation',
  'Project',
  'Asset',
  'Device',
  'Asset/Device',
  'Protocol',
  'Oracle',
  'Request'
]
