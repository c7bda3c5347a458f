import { Type } from '@sinclair/typebox'
import { Nullable, SetPreferencesArgsSchema, UserPreferencesSchema, type UserPreferences } from '@impact/schemas'
import { findPreferences, mergePreferences } from '../../db/repositories/preferences.ts'
import { callerDid } from '../../plugins/ucan-auth.ts'
import type { PluginContext, PluginDefinition } from '../types.ts'

const CACHE_TTL_MS = 5 * 60_000
const cacheKey = (did: string) => `prefs:${did}`

function preferencesStore (context: PluginContext) {
  return {
    /** Reads through a 5-minute shared cache (every replica sees a write's invalidation). */
    async read (did: string): Promise<UserPreferences | null> {
      const cached = await context.state.get(cacheKey(did))
      if (cached !== null) return JSON.parse(cached) as UserPreferences | null
      const stored = (await findPreferences(context.db, did) ?? null) as UserPreferences | null
      await context.state.set(cacheKey(did), JSON.stringify(stored), { ttlMs: CACHE_TTL_MS })
      return stored
    },
    async write (did: string, changes: Record<string, unknown>): Promise<UserPreferences> {
      const merged = await mergePreferences(context.db, did, { ...changes, updatedAt: new Date().toISOString() })
      await context.state.del(cacheKey(did))
      return merged as UserPreferences
    }
  }
}

function promptFor (preferences: UserPreferences): string {
  const { updatedAt: _updatedAt, ...behaviour } = preferences
  return [
    `User preferences (JSON): ${JSON.stringify(behaviour)}`,
    'Apply them to every answer from the start of the conversation: call yourself agentName and the user ' +
      'userName when set, answer in language, keep the tone and formality, and follow customInstructions.'
  ].join('\n')
}

/**
 * Behaviour preferences that persist across sessions (spec "Plugin: user-preferences"). The agent
 * saves them with `set_user_preferences` when the user asks for a lasting change; they are loaded
 * into the system prompt before every turn, so they apply from the first answer of a new session.
 */
export const userPreferencesPlugin: PluginDefinition = {
  name: 'user-preferences',
  description:
    'Per-user behaviour preferences (tone, length, format, language, formality, agent name) applied to every turn',
  attributes: {
    visibility: 'always',
    stability: 'stable',
    category: 'core',
    defaultEnabled: true,
    dependencies: [],
    requiredEnv: []
  },
  setup (context) {
    const store = preferencesStore(context)
    return {
      tools: [
        {
          name: 'set_user_preferences',
          description:
            'Save how the user wants you to behave from now on, in every session: the name to call you or them, ' +
            'language, tone, formality, standing instructions on length or format. Only for lasting behaviour ' +
            'changes the user asks for; do not save one-turn requests ("answer this one briefly") or facts about ' +
            'the user. Pass only the fields that change.',
          parameters: SetPreferencesArgsSchema,
          // It writes, but only the user's own behaviour settings, which they just asked for: no approval.
          sideEffects: true,
          requiresApproval: false,
          async execute (args: Record<string, unknown>, turn) {
            try {
              const changes = Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined))
              if (Object.keys(changes).length === 0) throw new Error('no preference given')
              const saved = await store.write(turn.did, changes)
              return `Updated. New preferences: ${JSON.stringify(saved, null, 2)}`
            } catch (error) {
              return `[Error updating user preferences: ${(error as Error).message}]`
            }
          }
        }
      ],
      async routes (app) {
        app.get(
          '/user-preferences',
          {
            schema: {
              tags: ['user-preferences'],
              summary: "The caller's behaviour preferences, or null when none are set",
              security: [{ ucanInvocation: [] }, { ucanDelegation: [] }],
              response: { 200: Nullable(UserPreferencesSchema), 401: Type.Ref('ErrorBody') }
            }
          },
          async (request, reply) => {
            const preferences = await store.read(callerDid(request))
            return await reply.type('application/json; charset=utf-8').send(preferences)
          }
        )
      },
      async loadState (turn) {
        const preferences = await store.read(turn.did)
        return preferences === null ? undefined : { prompt: promptFor(preferences), state: { preferences } }
      }
    }
  }
}
