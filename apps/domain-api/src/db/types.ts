/** Tables of domain-api, as kysely sees them. */

export interface DB {}
