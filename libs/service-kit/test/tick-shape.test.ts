import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const run = promisify(execFile)
const fixture = fileURLToPath(new URL('./fixtures/tick-feedback.ts', import.meta.url))

/** The states V8 recorded for `nextTick`'s computed-key literal after a full GC, in a fresh process. */
async function literalStates (mode: 'retain' | 'plain'): Promise<string[]> {
  const { stdout } = await run(process.execPath, ['--allow-natives-syntax', '--expose-gc', '--no-warnings', fixture, mode], { maxBuffer: 16 * 1024 * 1024 })
  return [...stdout.matchAll(/DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((match) => match[1] ?? '')
}

describe('retainTickObjectShape', () => {
  // The control shows the V8 behaviour the fix is for still exists in this Node: should a Node
  // upgrade make it go away, this test says so and the fix can be dropped.
  it('keeps nextTick building tick objects on the fast path after a full GC (which alone loses it)', async () => {
    const [plain, retained] = await Promise.all([literalStates('plain'), literalStates('retain')])
    expect(plain).toContain('MEGAMORPHIC')
    expect(retained.length).toBeGreaterThanOrEqual(2)
    expect(retained).not.toContain('MEGAMORPHIC')
  }, 30_000)
})
