import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'

/**
 * An MCP tool result as the text the model reads: text blocks as they are, other blocks named
 * (`[image image/png]`, `[resource file:///…]`), and the structured content as JSON when there is
 * no text to carry it.
 */
export function resultText (result: CallToolResult): string {
  const parts = (result.content ?? []).map((block) => {
    switch (block.type) {
      case 'text': return block.text
      case 'image':
      case 'audio': return `[${block.type} ${block.mimeType}]`
      case 'resource': return 'text' in block.resource ? block.resource.text : `[resource ${block.resource.uri}]`
      case 'resource_link': return `[resource ${block.uri}]`
      default: return ''
    }
  }).filter((part) => part !== '')
  if (parts.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent)
  return parts.join('\n')
}
