import { parseAllDocuments } from 'yaml'

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }
export type JsonObject = { [key: string]: Json }

/**
 * Every document of a YAML stream as plain JSON (merge keys honoured, as compose and kubectl do).
 * A syntax error or a duplicate key fails loudly with the file name.
 */
export function parseYamlDocuments (text: string, source: string): JsonObject[] {
  const out: JsonObject[] = []
  for (const document of parseAllDocuments(text, { merge: true, uniqueKeys: true })) {
    const problems = [...document.errors, ...document.warnings]
    if (problems.length > 0) throw new Error(`${source}: ${problems.map((p) => p.message).join('; ')}`)
    const value = document.toJS({ maxAliasCount: 100 }) as Json
    if (value === null || value === undefined) continue
    if (typeof value !== 'object' || Array.isArray(value)) throw new Error(`${source}: a document is not a mapping`)
    out.push(value)
  }
  return out
}

export function parseYaml (text: string, source: string): JsonObject {
  const documents = parseYamlDocuments(text, source)
  if (documents.length !== 1) throw new Error(`${source}: expected one YAML document, found ${documents.length}`)
  return documents[0] as JsonObject
}

export const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
