import { ModelListSchema, type ModelInfo } from '@impact/schemas'
import type { FastifyPluginAsyncTypebox } from '@impact/service-kit'
import type { ChatModel } from '../../services/agent/model.ts'

export interface ModelRoutesOptions {
  /** Model ids clients may choose; the first is the default. */
  models: string[]
  model: Pick<ChatModel, 'kind'>
}

/** Public: the models a client may pick for `model` in a message (oracle-wire ModelInfo). */
export const modelRoutes: FastifyPluginAsyncTypebox<ModelRoutesOptions> = async (app, { models, model }) => {
  const offline = model.kind === 'offline'
  const infos = models.map((id, i): ModelInfo => ({
    id,
    label: offline ? 'Offline agent' : id,
    family: offline ? 'offline' : id.split(/[/:-]/)[0] ?? id,
    tier: 'standard',
    costLabel: offline ? 'Free' : 'Provider pricing',
    badge: i === 0 ? 'Default' : '',
    blurb: offline
      ? 'Built-in deterministic agent used when no model provider is configured'
      : `Served by the configured OpenAI-compatible provider as ${id}`,
    vision: false,
    isDefault: i === 0,
    pricing: { inputPerMillion: 0, outputPerMillion: 0, currency: 'USD', unit: 'per_million_tokens' }
  }))
  app.get('/models', {
    schema: { tags: ['models'], summary: 'Models clients may choose (public)', response: { 200: ModelListSchema } }
  }, async () => ({ models: infos, default: models[0] ?? null }))
}
