/** Tables of ussd-gateway, as kysely sees them. */

export interface DB {}
