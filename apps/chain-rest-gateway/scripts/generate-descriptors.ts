// Regenerates descriptors/chain.binpb from proto/ (npm run descriptors -w apps/chain-rest-gateway).
// `--check` exits non-zero when the committed set is stale instead of writing it.
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { buildDescriptorSet } from './build-descriptor-set.ts'

const protoDir = fileURLToPath(new URL('../proto', import.meta.url))
const target = fileURLToPath(new URL('../descriptors/chain.binpb', import.meta.url))
const bytes = buildDescriptorSet(protoDir)

if (process.argv.includes('--check')) {
  const current = readFileSync(target)
  if (!current.equals(Buffer.from(bytes))) {
    process.stderr.write(`${target} is stale: run npm run descriptors -w apps/chain-rest-gateway\n`)
    process.exit(1)
  }
  process.stdout.write('descriptor set is up to date\n')
} else {
  writeFileSync(target, bytes)
  process.stdout.write(`wrote ${target} (${bytes.length} bytes)\n`)
}
