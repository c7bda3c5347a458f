export * from './common.ts'
export * from './pagination.ts'
export * from './errors.ts'
