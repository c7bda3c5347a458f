import { Type } from '@sinclair/typebox'
import { ToolFailure, type PluginDefinition } from '../../src/app.ts'
import { testPlugin } from './harness.ts'

export interface StovePlugin {
  plugin: PluginDefinition
  /** Arguments of every `register_stove` run, in order. */
  runs: Array<{ serial: string }>
  /** Arguments of every `register_stove` precheck, in order. */
  prechecks: Array<{ serial: string }>
}

/**
 * A plugin with a tool that changes state (`register_stove`, waits for approval) and one that only reads.
 * `register_stove`'s precheck (before the approval request) refuses serials starting `revoked-` and fails on
 * `broken-` ones.
 */
export function stovePlugin (): StovePlugin {
  const runs: StovePlugin['runs'] = []
  const prechecks: StovePlugin['prechecks'] = []
  const plugin = testPlugin({
    name: 'stoves',
    description: 'Registers and counts cooking stoves',
    setup: () => ({
      tools: [
        {
          name: 'register_stove',
          description: 'Registers a cooking stove by its serial number',
          parameters: Type.Object({ serial: Type.String() }),
          sideEffects: true,
          summarize: (args: { serial: string }) => `Register the stove ${args.serial} in your name`,
          precheck: async (args: { serial: string }) => {
            prechecks.push(args)
            if (args.serial.startsWith('broken-')) throw new Error('the stove registry is offline')
            if (!args.serial.startsWith('revoked-')) return undefined
            return new ToolFailure('stove revoked', { error: 'stove_revoked', serial: args.serial })
          },
          execute: async (args: { serial: string }) => {
            runs.push(args)
            return `registered ${args.serial}`
          }
        },
        {
          name: 'count_stoves',
          description: 'How many stoves are registered',
          parameters: Type.Object({}),
          execute: async () => String(runs.length)
        }
      ]
    })
  })
  return { plugin, runs, prechecks }
}
