import type { ToolDeclaration } from '@impact/schemas'
import type { TSchema } from '@sinclair/typebox'
import type { RuntimeEventName } from '../event-bus.ts'
import { withinDeadline } from './deadline.ts'
import type { ToolDefinition } from './model.ts'

export interface ToolContext {
  did: string
  sessionId: string
  requestId: string
  /** Unique per call, e.g. an idempotency key for what the tool changes. */
  toolCallId: string
  signal: AbortSignal
  /** Forwarded to the user's sockets. */
  emit: (name: RuntimeEventName, data: Record<string, unknown>) => void
  /** Tool name → base64 CAR UCAN invocation, for protected MCP tools. */
  mcpInvocations?: Readonly<Record<string, string>> | undefined
}

/** `parameters` is a TypeBox schema. */
export interface ServerTool {
  name: string
  description: string
  parameters: TSchema
  /** A tool that ignores the signal is left behind and the model is told it timed out. */
  timeoutMs?: number
  /** Each call waits for the user's approval unless `requiresApproval` says otherwise. */
  sideEffects?: boolean
  requiresApproval?: boolean
  /** In words the user can judge. */
  summarize?: (args: any) => string
  /** Ends a call bound to fail before the user is asked to approve it; not rerun when a turn resumes. */
  precheck?: (args: any, context: ToolContext) => Promise<ToolFailure | undefined | void>
  execute: (args: any, context: ToolContext) => Promise<unknown>
}

export const needsApproval = (tool: ServerTool): boolean => tool.requiresApproval ?? tool.sideEffects === true

const SUMMARY_ARGS_MAX = 300

export function approvalSummary (tool: ServerTool, args: Record<string, unknown>): string {
  try {
    const own = tool.summarize?.(args)
    if (typeof own === 'string' && own.trim() !== '') return own.trim()
  } catch {
    // A summary that fails falls back to the plain one: the request must still reach the user.
  }
  const shown = JSON.stringify(args)
  const cut = shown.length > SUMMARY_ARGS_MAX ? `${shown.slice(0, SUMMARY_ARGS_MAX)}…` : shown
  return `Run ${tool.name} with ${cut}`
}

/** The model reads `output` as the result instead of `Error: <message>`. */
export class ToolFailure extends Error {
  readonly output: unknown
  constructor (message: string, output: unknown) {
    super(message)
    this.name = 'ToolFailure'
    this.output = output
  }
}

export type ToolRun = { status: 'done', output: string } | { status: 'error', output: string, error: string }

export const toolText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value ?? null))

function failedRun (error: unknown): ToolRun {
  const message = (error as Error).message
  if (error instanceof ToolFailure) return { status: 'error', output: toolText(error.output), error: message }
  return { status: 'error', output: `Error: ${message}`, error: message }
}

export async function runServerTool (
  tool: ServerTool, args: unknown, context: ToolContext, defaultTimeoutMs: number
): Promise<ToolRun> {
  const timeoutMs = tool.timeoutMs ?? defaultTimeoutMs
  try {
    const run = async (signal: AbortSignal) => await tool.execute(args, { ...context, signal })
    const outcome = await withinDeadline(run, timeoutMs, context.signal)
    if (outcome === 'timeout') {
      return {
        status: 'error',
        output: `Error: ${tool.name} did not finish within ${timeoutMs / 1000} s and was stopped; ` +
          'whether it had any effect is unknown.',
        error: `timed out after ${timeoutMs} ms`
      }
    }
    if (outcome === 'aborted') {
      return { status: 'error', output: 'The turn ended before the tool finished.', error: 'aborted' }
    }
    return { status: 'done', output: toolText(outcome.value) }
  } catch (error) {
    return failedRun(error)
  }
}

/** Undefined to go on with the call, else the failed run that ends it. */
export async function precheckServerTool (
  tool: ServerTool, args: unknown, context: ToolContext, defaultTimeoutMs: number
): Promise<ToolRun | undefined> {
  const { precheck } = tool
  if (precheck === undefined) return undefined
  const timeoutMs = tool.timeoutMs ?? defaultTimeoutMs
  try {
    const outcome = await withinDeadline(async (signal) => await precheck(args, { ...context, signal }),
      timeoutMs, context.signal)
    if (outcome === 'timeout') {
      return {
        status: 'error',
        output: `Error: ${tool.name} could not be checked within ${timeoutMs / 1000} s; it was not run.`,
        error: `precheck timed out after ${timeoutMs} ms`
      }
    }
    if (outcome === 'aborted') {
      return { status: 'error', output: 'The turn ended before the tool ran.', error: 'aborted' }
    }
    return outcome.value instanceof ToolFailure ? failedRun(outcome.value) : undefined
  } catch (error) {
    return failedRun(error)
  }
}

// Browser SDKs send zod-derived schemas, sometimes degenerate; providers want an object schema.
export function clientToolDefinition (tool: ToolDeclaration): ToolDefinition {
  const { $schema: _ignored, ...schema } = tool.schema
  const parameters = schema.type === 'object'
    ? schema
    : { type: 'object', properties: {}, ...schema, ...(schema.type === undefined ? {} : { type: 'object' }) }
  return { name: tool.name, description: tool.description, parameters }
}

export const serverToolDefinition = (tool: ServerTool): ToolDefinition => {
  const { $id: _id, ...parameters } = JSON.parse(JSON.stringify(tool.parameters)) as Record<string, unknown>
  return { name: tool.name, description: tool.description, parameters }
}
