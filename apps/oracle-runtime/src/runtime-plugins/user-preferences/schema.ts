import { Type, type Static } from '@sinclair/typebox'
import { IsoTimestampSchema } from '@impact/schemas'

export const FORMALITIES = ['casual', 'friendly', 'neutral', 'semi-formal', 'professional', 'formal', 'technical', 'academic'] as const

const fields = {
  agentName: Type.Optional(Type.String({ minLength: 1, maxLength: 80, description: 'What the user wants to call the agent' })),
  userName: Type.Optional(Type.String({ minLength: 1, maxLength: 80, description: 'What the agent should call the user' })),
  language: Type.Optional(Type.String({ minLength: 1, maxLength: 20, description: 'Language to answer in (name or BCP 47 tag)' })),
  tone: Type.Optional(Type.String({ minLength: 1, maxLength: 80, description: 'Tone of voice, e.g. warm, direct, playful' })),
  formality: Type.Optional(Type.Union(FORMALITIES.map((f) => Type.Literal(f)), { description: 'Register of the answers' })),
  customInstructions: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'Standing behaviour instructions, e.g. answer length or format. Not one-turn requests, not facts about the user' }))
}

/** The stored record (oracle-wire §8). */
export const UserPreferencesSchema = Type.Object({ ...fields, updatedAt: Type.Optional(IsoTimestampSchema) }, { additionalProperties: false })
export type UserPreferences = Static<typeof UserPreferencesSchema>

/** Arguments of `set_user_preferences`: the same fields minus updatedAt, all optional. */
export const SetPreferencesArgsSchema = Type.Object(fields, { additionalProperties: false })
