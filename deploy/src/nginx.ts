/** An nginx directive: `name args;` or `name args { children }`. */
export interface NginxDirective { name: string, args: string[], children?: NginxDirective[] }

/** Parses nginx configuration syntax (quoted words, comments, blocks); fails on unbalanced input. */
export function parseNginx (text: string): NginxDirective[] {
  const tokens: string[] = []
  const pattern = /#[^\n]*|'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"|([{};])|([^\s{};'"#]+)/g
  for (const match of text.matchAll(pattern)) {
    if (match[0].startsWith('#')) continue
    tokens.push(match[1] ?? match[2] ?? match[3] ?? match[4] as string)
  }
  let at = 0
  const block = (depth: number): NginxDirective[] => {
    const out: NginxDirective[] = []
    let words: string[] = []
    while (at < tokens.length) {
      const token = tokens[at++] as string
      if (token === ';') {
        if (words.length === 0) throw new Error('nginx: empty directive')
        out.push({ name: words[0] as string, args: words.slice(1) })
        words = []
      } else if (token === '{') {
        if (words.length === 0) throw new Error('nginx: block without a name')
        out.push({ name: words[0] as string, args: words.slice(1), children: block(depth + 1) })
        words = []
      } else if (token === '}') {
        if (depth === 0 || words.length > 0) throw new Error('nginx: unbalanced }')
        return out
      } else {
        words.push(token)
      }
    }
    if (depth > 0 || words.length > 0) throw new Error('nginx: unexpected end of configuration')
    return out
  }
  return block(0)
}

export const directives = (list: NginxDirective[] | undefined, name: string): NginxDirective[] =>
  (list ?? []).filter((d) => d.name === name)

export interface NginxRoute {
  serverName: string
  /** `=` exact, otherwise a prefix location. */
  match: 'Exact' | 'Prefix'
  path: string
  /** `http://host:port` the location proxies to (variables resolved), or undefined when it answers itself. */
  upstream?: string
  location: NginxDirective
  server: NginxDirective
}

/** Every location of every server, with its proxy target (variables set by `set` in the server resolved). */
export function nginxRoutes (config: NginxDirective[]): NginxRoute[] {
  const routes: NginxRoute[] = []
  for (const server of directives(config, 'server')) {
    const variables = new Map(directives(server.children, 'set').map((d) => [d.args[0] as string, d.args[1] as string]))
    for (const serverName of directives(server.children, 'server_name').flatMap((d) => d.args)) {
      for (const location of directives(server.children, 'location')) {
        const exact = location.args[0] === '='
        const path = (exact ? location.args[1] : location.args[0]) as string
        const proxy = directives(location.children, 'proxy_pass')[0]?.args[0]
        const upstream =
          proxy === undefined ? undefined : proxy.replace(/\$\w+/g, (name) => variables.get(name) ?? name)
        routes.push({
          serverName,
          match: exact ? 'Exact' : 'Prefix',
          path,
          ...(upstream !== undefined ? { upstream } : {}),
          location,
          server
        })
      }
    }
  }
  return routes
}

/**
 * What the nginx image does with /etc/nginx/templates/*.template at start: envsubst of the variables
 * that are set in its environment (`${NAME}`); nginx's own `$variables` stay.
 */
export const renderTemplate = (text: string, env: Record<string, string>): string =>
  text.replace(/\$\{(\w+)\}/g, (match, name: string) => env[name] ?? match)
