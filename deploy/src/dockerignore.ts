/**
 * `.dockerignore` as the Docker builder reads it: patterns relative to the context root, `*` and `?`
 * within one path segment, `**` across segments, `!` re-includes, the last matching line wins, and a
 * pattern that matches a folder covers everything below it.
 */
export function dockerignoreMatcher (text: string): (path: string) => boolean {
  const rules = text.split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const negated = line.startsWith('!')
      const pattern = (negated ? line.slice(1) : line).trim().replace(/^\/+/, '').replace(/\/+$/, '')
      let source = ''
      for (let i = 0; i < pattern.length; i++) {
        const c = pattern[i] as string
        if (c === '*' && pattern[i + 1] === '*') {
          const slash = pattern[i + 2] === '/'
          source += slash ? '(?:.*/)?' : '.*'
          i += slash ? 2 : 1
        } else if (c === '*') source += '[^/]*'
        else if (c === '?') source += '[^/]'
        else source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&')
      }
      return { negated, regex: new RegExp(`^${source}$`) }
    })
  return (path: string) => {
    const segments = path.split('/')
    const prefixes = segments.map((_, index) => segments.slice(0, index + 1).join('/'))
    let excluded = false
    for (const rule of rules) {
      if (prefixes.some((prefix) => rule.regex.test(prefix))) excluded = !rule.negated
    }
    return excluded
  }
}
