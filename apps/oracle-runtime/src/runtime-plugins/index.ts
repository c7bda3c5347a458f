import { creditsPlugin } from './credits/index.ts'
import { mcpPlugin } from './mcp/index.ts'
import { platformPlugin } from './platform/index.ts'
import type { PluginDefinition } from './types.ts'
import { userPreferencesPlugin } from './user-preferences/index.ts'

/** Plugins shipped with the runtime; apps may add their own through the `plugins` option. */
export const BUILTIN_PLUGINS: PluginDefinition[] = [userPreferencesPlugin, creditsPlugin, mcpPlugin, platformPlugin]
export type * from './types.ts'
export { mergeFeatures, resolvePlugins, routeMatcher } from './registry.ts'
