import type { ActionDeclaration, ToolDeclaration } from '@impact/schemas'

export interface ToolCallContext {
  sessionId: string
  requestId: string
  toolCallId: string
  toolName: string
}

export type JsonSchema = Record<string, unknown>

/** Runs in the user's tab; the return value must be JSON-serialisable. */
export interface BrowserTool<Args = Record<string, unknown>, Result = unknown> {
  name: string
  description: string
  schema: JsonSchema
  handler: (args: Args, context: ToolCallContext) => Result | Promise<Result>
}

export interface ActionRenderProps<Args = Record<string, unknown>, Result = unknown> {
  toolCallId: string
  args: Args
  status: 'isRunning' | 'done' | 'error'
  result?: Result
  output?: string
  error?: string
}

/** `render` returns whatever the front end displays (a ReactNode for the React bindings). */
export interface AgAction<Args = Record<string, unknown>, Result = unknown, View = unknown> {
  name: string
  description: string
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

/** Handlers stay in the page. */
export function declareTools (tools: readonly AnyBrowserTool[] = []): ToolDeclaration[] {
  const seen = new Set<string>()
  return tools.map(({ name, description, schema }) => {
    checkName('Browser tool', name, seen)
    return { name, description, schema }
  })
}

export function declareActions (actions: readonly AnyAgAction[] = []): ActionDeclaration[] {
  const seen = new Set<string>()
  return actions.map(({ name, description, schema, render }) => {
    checkName('Action', name, seen)
    return { name, description, schema, hasRender: render !== undefined }
  })
}

export const errorText = (error: unknown): string =>
  error instanceof Error ? error.message : typeof error === 'string' ? error : 'the handler failed'
