import { DockerfileParser, type Instruction } from 'dockerfile-ast'

/** One instruction of a stage, its arguments as written (continuations joined, comments dropped). */
export interface DockerInstruction { keyword: string, args: string, line: number, json?: string[] }

export interface DockerStage {
  name: string | undefined
  /** The FROM image, with global ARG defaults substituted. */
  from: string
  instructions: DockerInstruction[]
}

export interface DockerfileModel {
  globalArgs: Record<string, string>
  stages: DockerStage[]
}

/** Instructions whose JSON (exec) form is read as a string array. */
const JSON_FORMS = new Set(['CMD', 'ENTRYPOINT', 'HEALTHCHECK'])

function jsonForm (instruction: Instruction): string[] | undefined {
  const content = (instruction.getArgumentsContent() ?? '').replace(/\\\r?\n/g, ' ')
  const start = content.indexOf('[')
  if (start === -1) return undefined
  try {
    const parsed = JSON.parse(content.slice(start)) as unknown
    return Array.isArray(parsed) && parsed.every((item) => typeof item === 'string') ? parsed : undefined
  } catch {
    return undefined
  }
}

const substitute = (text: string, values: Record<string, string>): string =>
  text.replace(
    /\$\{(\w+)\}|\$(\w+)/g,
    (match, braced: string | undefined, bare: string | undefined) => values[(braced ?? bare) as string] ?? match
  )

export function parseDockerfile (text: string): DockerfileModel {
  const dockerfile = DockerfileParser.parse(text)
  const globalArgs: Record<string, string> = {}
  const stages: DockerStage[] = []
  for (const instruction of dockerfile.getInstructions()) {
    const keyword = instruction.getKeyword()
    // Flags (--from=…, --interval=…) come first, as written.
    const flags = (
      (instruction as Partial<{ getFlags: () => Array<{ toString: () => string }> }>).getFlags?.() ?? []
    ).map((flag) => flag.toString())
    const args = [...flags, instruction.getArgumentsContent() ?? '']
      .join(' ')
      .replace(/\\\r?\n/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
    const line = instruction.getRange().start.line + 1
    if (keyword === 'FROM') {
      const words = args.split(' ').filter((word) => !word.startsWith('--'))
      const asAt = words.findIndex((word) => word.toUpperCase() === 'AS')
      stages.push({
        name: asAt === -1 ? undefined : words[asAt + 1],
        from: substitute(words[0] ?? '', globalArgs),
        instructions: []
      })
      continue
    }
    const stage = stages.at(-1)
    if (stage === undefined) {
      if (keyword === 'ARG') {
        const [name, value] = args.split('=', 2) as [string, string | undefined]
        globalArgs[name] = (value ?? '').replace(/^"(.*)"$/, '$1')
      }
      continue
    }
    const json = JSON_FORMS.has(keyword) ? jsonForm(instruction) : undefined
    stage.instructions.push({ keyword, args, line, ...(json !== undefined ? { json } : {}) })
  }
  return { globalArgs, stages }
}

export function stage (model: DockerfileModel, name: string): DockerStage {
  const found = model.stages.find((candidate) => candidate.name === name)
  if (found === undefined) throw new Error(`Dockerfile has no stage ${name}`)
  return found
}

/** The stages a stage is built on (its FROM chain) and copies from, transitively. */
export function stageDependencies (model: DockerfileModel, name: string): Set<string> {
  const out = new Set<string>()
  const visit = (current: string) => {
    const found = model.stages.find((candidate) => candidate.name === current)
    if (found === undefined || out.has(current)) return
    out.add(current)
    visit(found.from)
    for (const instruction of found.instructions) {
      const from = /--from=(\S+)/.exec(instruction.args)
      if (instruction.keyword === 'COPY' && from !== null) visit(from[1] as string)
    }
  }
  visit(name)
  return out
}

/** ARG defaults of a stage (`ARG NAME=value`), and whether each is declared. */
export function stageArgs (target: DockerStage): Map<string, string | undefined> {
  const out = new Map<string, string | undefined>()
  for (const instruction of target.instructions.filter((i) => i.keyword === 'ARG')) {
    const at = instruction.args.indexOf('=')
    if (at === -1) out.set(instruction.args, undefined)
    else out.set(instruction.args.slice(0, at), instruction.args.slice(at + 1).replace(/^"(.*)"$/, '$1'))
  }
  return out
}

/**
 * The image configuration a stage ends with, for given build args: ENV (with ARG values substituted),
 * USER, WORKDIR, EXPOSE, ENTRYPOINT, CMD, HEALTHCHECK. Inherited from the FROM stage first.
 */
export interface ImageConfig {
  env: Record<string, string>
  user?: string
  workdir: string
  expose: string[]
  entrypoint?: string[]
  cmd?: string[]
  healthcheck?: string[]
}

export function imageConfig (model: DockerfileModel, name: string, buildArgs: Record<string, string>): ImageConfig {
  const target = stage(model, name)
  const parent = model.stages.some((candidate) => candidate.name === target.from)
    ? imageConfig(model, target.from, buildArgs)
    : { env: {}, workdir: '/', expose: [] }
  const config: ImageConfig = { ...parent, env: { ...parent.env }, expose: [...parent.expose] }
  const values: Record<string, string> = { ...config.env }
  for (const instruction of target.instructions) {
    const text = substitute(instruction.args, values)
    switch (instruction.keyword) {
      case 'ARG': {
        const at = instruction.args.indexOf('=')
        const argName = at === -1 ? instruction.args : instruction.args.slice(0, at)
        const fallback = at === -1 ? undefined : instruction.args.slice(at + 1).replace(/^"(.*)"$/, '$1')
        const value = buildArgs[argName] ?? fallback
        if (value !== undefined) values[argName] = value
        break
      }
      case 'ENV':
        for (const match of text.matchAll(/(\w+)=("[^"]*"|\S+)/g)) {
          const value = (match[2] as string).replace(/^"(.*)"$/, '$1')
          config.env[match[1] as string] = value
          values[match[1] as string] = value
        }
        break
      case 'USER':
        config.user = text
        break
      case 'WORKDIR':
        config.workdir = text.startsWith('/') ? text : `${config.workdir.replace(/\/$/, '')}/${text}`
        break
      case 'EXPOSE':
        config.expose.push(...text.split(' '))
        break
      case 'ENTRYPOINT':
        if (instruction.json !== undefined) config.entrypoint = instruction.json
        break
      case 'CMD':
        if (instruction.json !== undefined) config.cmd = instruction.json
        break
      case 'HEALTHCHECK':
        if (instruction.json !== undefined) config.healthcheck = instruction.json
        break
    }
  }
  return config
}
