import type { ToolDeclaration } from '@impact/schemas'
import type { TSchema } from '@sinclair/typebox'
import type { RuntimeEventName } from '../event-bus.ts'
import { withinDeadline } from './deadline.ts'
import type { ToolDefinition } from './model.ts'

/** What a server tool's code can reach while it runs. */
export interface ToolContext {
  did: string
  sessionId: string
  requestId: string
  /** This call's id, unique per call: e.g. an idempotency key for what the tool changes. */
  toolCallId: string
  signal: AbortSignal
  /** Emits a typed runtime event for this turn (e.g. `render_component`), forwarded to the user's sockets. */
  emit: (name: RuntimeEventName, data: Record<string, unknown>) => void
  /** The message's `mcpInvocations`: tool name → base64 CAR UCAN invocation, for protected MCP tools. */
  mcpInvocations?: Readonly<Record<string, string>> | undefined
}

/** A tool that runs in the runtime (contributed by a plugin). `parameters` is a TypeBox schema. */
export interface ServerTool {
  name: string
  description: string
  parameters: TSchema
  /**
   * Longest one call may run (default TOOL_TIMEOUT_MS). The context's signal fires at the deadline or
   * when the turn ends; a tool that ignores it is left behind and the model is told it timed out.
   */
  timeoutMs?: number
  /**
   * The tool changes state outside the conversation (registers, pays, deletes, sends): each call waits for
   * the user's approval unless `requiresApproval` says otherwise.
   */
  sideEffects?: boolean
  /** Overrides what `sideEffects` implies: true asks before every call, false never asks. */
  requiresApproval?: boolean
  /** The approval request's text for these arguments, in words the user can judge (default: name and arguments). */
  summarize?: (args: any) => string
  /**
   * Runs before each call, and so before its approval request: resolve to nothing to go on; return (or throw)
   * a `ToolFailure` to end the call there, reported as a failure of `execute` would be, without asking the user
   * (e.g. the oracle lacks the user's authorisation, so approving could not help). Same context and deadline
   * as `execute`; not run again when a turn resumed after a restart acts on the user's decision.
   */
  precheck?: (args: any, context: ToolContext) => Promise<ToolFailure | undefined | void>
  execute: (args: any, context: ToolContext) => Promise<unknown>
}

export const needsApproval = (tool: ServerTool): boolean => tool.requiresApproval ?? tool.sideEffects === true

const SUMMARY_ARGS_MAX = 300

/** What the user is asked to approve: the tool's own summary, or its name and (cut) arguments. */
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

/**
 * A tool's failure with a result the model should read (e.g. compact JSON saying what to do next): the
 * call is reported as an error with `output` as its result, instead of `Error: <message>`.
 */
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

/** Runs a server tool against its deadline and the turn's signal, whichever comes first (see withinDeadline). */
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

/**
 * Runs a server tool's `precheck` like the tool itself: undefined to go on with the call, or the failed run
 * that ends it (the check's failure, its deadline, or the end of the turn; the tool did not run in any case).
 */
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

/**
 * A tool or action the client declared in the message body (`tools`, `agActions`), as the model sees it.
 * Browser SDKs send zod-derived schemas, sometimes degenerate (`{"$schema": …}` only). Providers
 * want an object schema, so the `$schema` key goes and a missing type becomes an empty object.
 */
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
