import ts from 'typescript'
import { repoPath } from './paths.ts'
import { nameOf } from './kustomize.ts'
import type { JsonObject } from './yaml.ts'

/**
 * Kubernetes API schema checks, offline: kubernetes-models (types and validators generated from the
 * Kubernetes OpenAPI document) checks every field's type, format and required fields; the TypeScript
 * compiler, given each manifest as an object literal typed with the same models, rejects every field the
 * API does not define (kubeconform's -strict: a misspelt field is otherwise dropped silently by the API).
 */

const modulePath = (resource: JsonObject): string =>
  `kubernetes-models/${String(resource.apiVersion)}/${String(resource.kind)}`

const describe = (resource: JsonObject): string => `${String(resource.kind)}/${nameOf(resource)}`

/** Type and format errors of each resource, from the Kubernetes models' validators. */
export async function schemaErrors (resources: JsonObject[]): Promise<string[]> {
  const errors: string[] = []
  for (const resource of resources) {
    let Model: new (data: JsonObject) => { validate: () => void }
    try {
      const module = (await import(modulePath(resource))) as Record<
        string,
        new (data: JsonObject) => { validate: () => void }
      >
      Model = module[String(resource.kind)] as typeof Model
    } catch {
      errors.push(
        `${describe(resource)}: unknown apiVersion/kind ${String(resource.apiVersion)} ${String(resource.kind)}`
      )
      continue
    }
    try {
      new Model(structuredClone(resource)).validate()
    } catch (error) {
      errors.push(`${describe(resource)}: ${(error as Error).message}`)
    }
  }
  return errors
}

/** Fields the Kubernetes API does not define (excess properties), found by type-checking the manifests. */
export function unknownFieldErrors (resources: JsonObject[]): string[] {
  const file = repoPath('deploy', '__manifests__.ts')
  const lines: string[] = []
  const owners: Array<{ from: number, resource: JsonObject }> = []
  resources.forEach((resource, index) => {
    const type = `T${index}`
    lines.push(`import type { I${String(resource.kind)} as ${type} } from '${modulePath(resource)}'`)
  })
  let lineCount = lines.length
  resources.forEach((resource, index) => {
    owners.push({ from: lineCount, resource })
    const declaration = `export const r${index}: T${index} = ${JSON.stringify(resource, null, 1)}`
    lines.push(declaration)
    lineCount += declaration.split('\n').length
  })
  const text = lines.join('\n')
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: []
  }
  const host = ts.createCompilerHost(options)
  const getSourceFile = host.getSourceFile.bind(host)
  host.getSourceFile = (name, language, ...rest) =>
    name === file ? ts.createSourceFile(name, text, language) : getSourceFile(name, language, ...rest)
  const fileExists = host.fileExists.bind(host)
  host.fileExists = (name) => name === file || fileExists(name)
  const readFile = host.readFile.bind(host)
  host.readFile = (name) => name === file ? text : readFile(name)
  const program = ts.createProgram([file], options, host)
  const source = program.getSourceFile(file)
  return program.getSemanticDiagnostics(source).map((diagnostic) => {
    const line =
      source !== undefined && diagnostic.start !== undefined
        ? source.getLineAndCharacterOfPosition(diagnostic.start).line
        : -1
    const owner = owners.filter((candidate) => candidate.from <= line).at(-1)
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')
    return `${owner === undefined ? 'manifests' : describe(owner.resource)}: ${message}`
  })
}
