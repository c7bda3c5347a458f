import { Type } from '@sinclair/typebox'
import { Nullable } from '@impact/schemas'
import type { FastifyPluginAsyncTypebox } from '@impact/service-kit'

const ModelInfoSchema = Type.Object({
  id: Type.String(),
  label: Type.String(),
  family: Type.String(),
  tier: Type.String(),
  costLabel: Type.String(),
  badge: Type.String(),
  blurb: Type.String(),
  vision: Type.Boolean(),
  isDefault: Type.Boolean(),
  pricing: Type.Object({ inputPerMillion: Type.Number(), outputPerMillion: Type.Number(), currency: Type.Literal('USD'), unit: Type.Literal('per_million_tokens') })
})

/** Public: the models a client may pick for `model` in a message (oracle-wire ModelInfo). */
export const modelRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { models, model } = app.runtime
  const offline = model.kind === 'offline'
  const infos = models.map((id, i) => ({
    id,
    label: offline ? 'Offline agent' : id,
    family: offline ? 'offline' : id.split(/[/:-]/)[0] ?? id,
    tier: 'standard',
    costLabel: offline ? 'Free' : 'Provider pricing',
    badge: i === 0 ? 'Default' : '',
    blurb: offline ? 'Built-in deterministic agent used when no model provider is configured' : `Served by the configured OpenAI-compatible provider as ${id}`,
    vision: false,
    isDefault: i === 0,
    pricing: { inputPerMillion: 0, outputPerMillion: 0, currency: 'USD' as const, unit: 'per_million_tokens' as const }
  }))
  app.get('/models', {
    schema: { tags: ['models'], summary: 'Models clients may choose (public)', response: { 200: Type.Object({ models: Type.Array(ModelInfoSchema), default: Nullable(Type.String()) }) } }
  }, async () => ({ models: infos, default: models[0] ?? null }))
}
