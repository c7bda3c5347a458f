export { tamperSignature } from '../src/testing.ts'

export const nowS = () => Math.floor(Date.now() / 1000)
