/** Tables of oracle-runtime, as kysely sees them. */

export interface DB {}
