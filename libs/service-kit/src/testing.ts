export { itServesTheBasics, type ServiceBasicsOptions } from './testing/basics.ts'
export { startServerProcess, type ServerProcess } from './testing/server-process.ts'
export { runOutageDrill, type OutageDrillOptions, type OutageDrillResult } from './testing/outage-drill.ts'
