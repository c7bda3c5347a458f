/** The registry's notion of "now". Injected through buildApp so tests move time instead of sleeping. */
export type Clock = () => Date

export const systemClock: Clock = () => new Date()
