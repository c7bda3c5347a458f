import { createHash } from 'node:crypto'

/** What providers accept as a function name (OpenAI: `^[a-zA-Z0-9_-]{1,64}$`). */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/
const MAX = 64

const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 8)

/**
 * The name the model sees for an MCP tool: `<server>__<tool>` (the prefix convention of MCP
 * adapters), characters providers refuse turned into `_`. A name that had to change, or that is
 * too long, gets a short digest of the original so two tools never meet on one name.
 */
export function namespacedToolName (server: string, tool: string): string {
  const plain = `${server}__${tool}`
  const safe = `${server}__${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`
  if (safe === plain && safe.length <= MAX) return safe
  const suffix = `_${digest(tool)}`
  return `${safe.slice(0, MAX - suffix.length)}${suffix}`
}
