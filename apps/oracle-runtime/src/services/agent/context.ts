import type { ChatMessage } from './model.ts'

/** How much of the conversation a model request may carry, in characters of the messages as sent (JSON). */
export interface ContextBudget {
  maxChars: number
  /** Longest tool output sent; the stored output stays whole. */
  toolOutputMaxChars: number
}

/** A tool output cut to `max` characters, with a marker saying how much was left out. */
export function clipToolOutput (output: string, max: number): string {
  if (output.length <= max) return output
  // Never split a surrogate pair: a lone half is not valid text for a provider.
  const end = /[\uD800-\uDBFF]/.test(output.charAt(max - 1)) ? max - 1 : max
  return `${output.slice(0, end)}\n[truncated: ${output.length - end} of ${output.length} characters left out]`
}

const size = (message: ChatMessage) => JSON.stringify(message).length

/**
 * The messages to send for one model call, built to the budget: tool outputs clipped, then the
 * oldest whole turns (a user message and what followed it) dropped until the rest fits. The
 * leading system messages (prompt, preferences) and the current turn are always kept, so a
 * window never opens on a tool result whose call was cut off.
 */
export function fitContext (messages: ChatMessage[], budget: ContextBudget): ChatMessage[] {
  const clipped = messages.map((m): ChatMessage =>
    m.role === 'tool' ? { ...m, content: clipToolOutput(m.content, budget.toolOutputMaxChars) } : m)
  let start = 0
  while (clipped[start]?.role === 'system') start++
  const system = clipped.slice(0, start)
  const turns: ChatMessage[][] = []
  for (const message of clipped.slice(start)) {
    if (message.role === 'user' || turns.length === 0) turns.push([message])
    else turns[turns.length - 1]?.push(message)
  }
  const sizes = turns.map((turn) => turn.reduce((sum, m) => sum + size(m), 0))
  let total = system.reduce((sum, m) => sum + size(m), 0) + sizes.reduce((sum, n) => sum + n, 0)
  let first = 0
  while (total > budget.maxChars && first < turns.length - 1) total -= sizes[first++] ?? 0
  return [...system, ...turns.slice(first).flat()]
}
