import { cleanup, configure } from '@testing-library/react'
import { TextDecoder, TextEncoder } from 'node:util'
import { afterEach } from 'vitest'

// vitest's jsdom environment swaps the global typed arrays (and TextEncoder) for jsdom's, from
// another realm: bytes Node makes (Buffer, crypto) then fail `instanceof Uint8Array` in the UCAN
// libraries the test users mint with. A browser has one realm; restore Node's to match it.
const NodeUint8Array = Object.getPrototypeOf(Buffer.prototype).constructor as Uint8ArrayConstructor
Object.assign(globalThis, {
  Uint8Array: NodeUint8Array,
  ArrayBuffer: Buffer.alloc(1).buffer.constructor,
  TextEncoder,
  TextDecoder
})

// The hooks talk to a real runtime that may share the machine with other suites: wait generously.
configure({ asyncUtilTimeout: 10_000 })

// Testing Library unmounts after each test only where `afterEach` is a global; vitest's is not. A tree
// left mounted reacts to its runtime closing after the last test, when jsdom is already gone.
afterEach(() => { cleanup() })
