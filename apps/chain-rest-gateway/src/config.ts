import { Type, type Static } from '@sinclair/typebox'
import { baseConfigProperties, loadConfig as load } from '@impact/service-kit'

export const ConfigSchema = Type.Object({
  ...baseConfigProperties({ app: 'chain-rest-gateway', port: 3003 })
})
export type Config = Static<typeof ConfigSchema>

export const loadConfig = (env: Record<string, string | undefined> = process.env): Config => load(ConfigSchema, env)
