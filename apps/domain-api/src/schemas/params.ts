import { Type } from '@sinclair/typebox'
import { EntityDidSchema, UuidSchema } from '@impact/schemas'

export const DidParamsSchema = Type.Object({ did: EntityDidSchema })

export const ProposalParamsSchema = Type.Object({ id: UuidSchema })
