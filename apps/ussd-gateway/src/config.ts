import { Type, type Static } from '@sinclair/typebox'
import { baseConfigProperties, loadConfig as load } from '@impact/service-kit'

export const ConfigSchema = Type.Object({
  ...baseConfigProperties({ app: 'ussd-gateway', port: 3000 })
})
export type Config = Static<typeof ConfigSchema>

export const loadConfig = (env: Record<string, string | undefined> = process.env): Config => load(ConfigSchema, env)
