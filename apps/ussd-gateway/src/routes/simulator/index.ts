import type { FastifyPluginAsyncTypebox } from '@impact/service-kit'
import type { Config } from '../../config.ts'

export const simulatorRoutes: FastifyPluginAsyncTypebox<{ config: Config }> = async () => {}
