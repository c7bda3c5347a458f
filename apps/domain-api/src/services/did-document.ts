import { base58btc } from 'multiformats/bases/base58'
import { DID_PATTERN, type DeviceKey, type DomainDocumentFields, type ServiceInput } from '@impact/schemas'
import type { VersionRow } from '../db/version.repository.ts'
import { invalid } from '../errors.ts'
import type { DidDocument, DidDocumentMetadata } from '../schemas/did-document.ts'

/** Builds W3C DID Core documents (JSON-LD) from version snapshots, and checks what registration sends. */

export const DID_CORE_CONTEXT = 'https://www.w3.org/ns/did/v1'
export const MULTIKEY_CONTEXT = 'https://w3id.org/security/multikey/v1'
export const RESOLUTION_CONTEXT = 'https://w3id.org/did-resolution/v1'
/** Namespace of the platform's own terms (link service types). */
export const IXO_NAMESPACE = 'https://w3id.org/ixo/ns/did#'

/**
 * The terms this registry's documents use beyond DID Core and Multikey, inline so the document
 * needs no context the platform would have to host: the platform link types and the service types
 * registration accepts by name.
 */
export const IXO_TERMS = {
  '@protected': true,
  ixo: IXO_NAMESPACE,
  IxoProtocol: 'ixo:IxoProtocol',
  IxoParentEntity: 'ixo:IxoParentEntity',
  IxoOrganisation: 'ixo:IxoOrganisation',
  LinkedDomains: 'https://identity.foundation/.well-known/resources/did-configuration/#LinkedDomains',
  DIDCommMessaging: 'https://didcomm.org/messaging/contexts/v2#DIDCommMessaging'
} as const

/** Fragments the registry gives its own services. */
const LINKS = [
  { fragment: 'protocol', type: 'IxoProtocol' },
  { fragment: 'parent', type: 'IxoParentEntity' },
  { fragment: 'organisation', type: 'IxoOrganisation' }
] as const
const RESERVED_FRAGMENTS = new Set<string>(LINKS.map((l) => l.fragment))
const DEFAULT_PURPOSES: NonNullable<DeviceKey['purposes']> = ['authentication', 'assertionMethod']
const ED25519_MULTICODEC = [0xed, 0x01]
const DID_KEY = /^did:key:(z[1-9A-HJ-NP-Za-km-z]{40,128})$/
const DID = new RegExp(DID_PATTERN)

export const isDid = (value: string) => DID.test(value)
export const didMethodOf = (did: string) => did.split(':', 3)[1] ?? ''

/** An Ed25519 multikey decodes to the 0xed01 multicodec and 32 key bytes (the pattern only checks the alphabet). */
function isEd25519Multikey (value: string): boolean {
  try {
    const bytes = base58btc.decode(value)
    return bytes.length === 34 && bytes[0] === ED25519_MULTICODEC[0] && bytes[1] === ED25519_MULTICODEC[1]
  } catch {
    return false
  }
}

/** Rules across fields of the document part of a create or update body (400 with details). */
export function checkDocumentFields (fields: DomainDocumentFields): void {
  const details: Array<{ field: string, message: string }> = []
  const seen = new Set<string>()
  const claim = (id: string, field: string) => {
    if (RESERVED_FRAGMENTS.has(id)) details.push({ field, message: `"${id}" is reserved for the platform links` })
    else if (seen.has(id)) details.push({ field, message: `"${id}" is used twice (keys and services share fragments)` })
    seen.add(id)
  }
  fields.deviceKeys?.forEach((key, i) => {
    claim(key.id, `/deviceKeys/${i}/id`)
    if (!isEd25519Multikey(key.publicKeyMultibase)) {
      details.push({ field: `/deviceKeys/${i}/publicKeyMultibase`, message: 'must be an Ed25519 public key multikey' })
    }
  })
  fields.services?.forEach((service, i) => { claim(service.id, `/services/${i}/id`) })
  if (details.length > 0) throw invalid('Invalid DID document fields', details)
}

/** The document fields of a body, only those it carries. */
export function documentFieldsOf (body: DomainDocumentFields): DomainDocumentFields {
  const fields: DomainDocumentFields = {}
  if (body.deviceKeys !== undefined) fields.deviceKeys = body.deviceKeys
  if (body.services !== undefined) fields.services = body.services
  if (body.alsoKnownAs !== undefined) fields.alsoKnownAs = body.alsoKnownAs
  if (body.links !== undefined) fields.links = body.links
  return fields
}

type Method = NonNullable<DidDocument['verificationMethod']>[number]
type Service = NonNullable<DidDocument['service']>[number]

/** The DID document of a domain as one version recorded it. */
export function buildDocument (did: string, version: VersionRow): DidDocument {
  const { snapshot } = version
  const fields = snapshot.document as DomainDocumentFields
  const methods: Method[] = []
  const relations: Record<NonNullable<DeviceKey['purposes']>[number], string[]> =
    { authentication: [], assertionMethod: [], capabilityInvocation: [] }

  // A controller that is a did:key carries its public key in its DID: its key can act for the domain.
  for (const controller of snapshot.controllers) {
    const key = DID_KEY.exec(controller)?.[1]
    if (key === undefined) continue
    const id = `${controller}#${key}`
    methods.push({ id, type: 'Multikey', controller, publicKeyMultibase: key })
    relations.authentication.push(id)
    relations.assertionMethod.push(id)
    relations.capabilityInvocation.push(id)
  }
  for (const key of fields.deviceKeys ?? []) {
    const id = `${did}#${key.id}`
    methods.push({ id, type: 'Multikey', controller: did, publicKeyMultibase: key.publicKeyMultibase })
    for (const purpose of key.purposes ?? DEFAULT_PURPOSES) relations[purpose].push(id)
  }

  const services: Service[] = (fields.services ?? []).map((s: ServiceInput) => ({
    id: `${did}#${s.id}`,
    type: s.type,
    serviceEndpoint: s.serviceEndpoint
  }))
  const targets = { protocol: snapshot.class, parent: fields.links?.parent, organisation: fields.links?.organisation }
  for (const link of LINKS) {
    const target = targets[link.fragment]
    if (target !== undefined) services.push({ id: `${did}#${link.fragment}`, type: link.type, serviceEndpoint: target })
  }

  const document: DidDocument = {
    '@context': [DID_CORE_CONTEXT, MULTIKEY_CONTEXT, IXO_TERMS],
    id: did,
    controller: snapshot.controllers
  }
  if ((fields.alsoKnownAs ?? []).length > 0) document.alsoKnownAs = fields.alsoKnownAs
  if (methods.length > 0) document.verificationMethod = methods
  for (const [relation, ids] of Object.entries(relations)) {
    if (ids.length > 0) document[relation as keyof typeof relations] = ids
  }
  document.service = services
  return document
}

const isoOf = (value: string | null) => (value === null ? null : new Date(value).toISOString())

/** didDocumentMetadata of a version: times, version ids and the registry's verification status. */
export function buildMetadata (version: VersionRow, next: VersionRow | undefined): DidDocumentMetadata {
  const { snapshot } = version
  const metadata: DidDocumentMetadata = { created: isoOf(snapshot.createdAt)! }
  // A document that never changed has no `updated` (DID Core: the last update of the resolved version).
  if (version.version > 1) metadata.updated = isoOf(snapshot.updatedAt)!
  metadata.deactivated = snapshot.status === 'deactivated'
  metadata.versionId = String(version.version)
  if (next !== undefined) {
    metadata.nextUpdate = next.at.toISOString()
    metadata.nextVersionId = String(next.version)
  }
  metadata.type = snapshot.type
  metadata.status = snapshot.status
  metadata.verified = snapshot.verifiedAt !== null
  if (snapshot.verifiedAt !== null) metadata.verifiedAt = isoOf(snapshot.verifiedAt)!
  return metadata
}
