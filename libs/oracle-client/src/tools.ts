import type { ActionDeclaration, ToolDeclaration } from '@impact/schemas'

/** What a browser tool or AG-UI action handler learns about the call it runs. */
export interface ToolCallContext {
  sessionId: string
  requestId: string
  toolCallId: string
  toolName: string
}

export type JsonSchema = Record<string, unknown>

/**
 * A tool that runs in the user's browser tab. Advertised to the agent in `tools` (name, description,
 * input schema); the oracle calls it with `browser_tool_call` over the socket and gets the handler's
 * return value (or its error message) back as `tool_result`. The value must be JSON-serialisable.
 */
export interface BrowserTool<Args = Record<string, unknown>, Result = unknown> {
  name: string
  description: string
  /** JSON schema of the arguments, as the model sees it. */
  schema: JsonSchema
  handler: (args: Args, context: ToolCallContext) => Result | Promise<Result>
}

/** What an action's render function is given: the call, and its outcome once known. */
export interface ActionRenderProps<Args = Record<string, unknown>, Result = unknown> {
  toolCallId: string
  args: Args
  status: 'isRunning' | 'done' | 'error'
  result?: Result
  output?: string
  error?: string
}

/**
 * An AG-UI action: advertised in `agActions` (with `hasRender` when it renders), invoked with
 * `action_call`, answered with `action_call_result`. `render` draws the call in the chat; the React
 * bindings expect a ReactNode, other front ends whatever they display.
 */
export interface AgAction<Args = Record<string, unknown>, Result = unknown, View = unknown> {
  name: string
  description: string
  /** JSON schema of the parameters. */
  schema: JsonSchema
  handler: (args: Args, context: ToolCallContext) => Result | Promise<Result>
  render?: (props: ActionRenderProps<Args, Result>) => View
}

const NAME = /^[a-zA-Z0-9_-]{1,64}$/

function checkName (kind: string, name: string, seen: Set<string>): void {
  if (!NAME.test(name)) throw new TypeError(`${kind} name ${JSON.stringify(name)} must be 1–64 letters, digits, _ or -`)
  if (seen.has(name)) throw new TypeError(`${kind} ${name} is declared twice`)
  seen.add(name)
}

/** Typed helpers that keep a tool's handler arguments tied to its declaration. */
export const defineBrowserTool = <Args = Record<string, unknown>, Result = unknown>(
  tool: BrowserTool<Args, Result>
): BrowserTool<Args, Result> => tool
export const defineAgAction = <Args = Record<string, unknown>, Result = unknown, View = unknown>(
  action: AgAction<Args, Result, View>
): AgAction<Args, Result, View> => action

// Handlers are stored type-erased: the oracle sends whatever arguments the model chose.
export type AnyBrowserTool = BrowserTool<any, any>
export type AnyAgAction = AgAction<any, any, any>

/** The `tools` of a message body: name, description and schema only (handlers stay in the page). */
export function declareTools (tools: readonly AnyBrowserTool[] = []): ToolDeclaration[] {
  const seen = new Set<string>()
  return tools.map(({ name, description, schema }) => {
    checkName('Browser tool', name, seen)
    return { name, description, schema }
  })
}

/** The `agActions` of a message body. */
export function declareActions (actions: readonly AnyAgAction[] = []): ActionDeclaration[] {
  const seen = new Set<string>()
  return actions.map(({ name, description, schema, render }) => {
    checkName('Action', name, seen)
    return { name, description, schema, hasRender: render !== undefined }
  })
}

export const errorText = (error: unknown): string =>
  error instanceof Error ? error.message : typeof error === 'string' ? error : 'the handler failed'
