import { Type, type Static } from '@sinclair/typebox'
import { SERVICE_CODE_PATTERN } from './ussd.ts'

/**
 * A display name on the welcome screen and in END texts: plain GSM-7, at most 24 characters, so every
 * screen that names it fits one USSD message (test/services/screens.test.ts renders them at this length).
 */
export const DISPLAY_NAME_PATTERN = '^[A-Za-z0-9 .&\'-]+$'
export const MAX_DISPLAY_NAME = 24
/** A support number as users type it: E.164 (with or without `+`) or a short code; at most 16 characters. */
export const SUPPORT_PHONE_PATTERN = '^\\+?[0-9]{3,15}$'
export const MAX_DOMAIN_WORD = 16

/** Menus a programme can turn on (all off by default), in the order the main menu lists them. */
export const MENUS = ['myDomains', 'askAssistant', 'registerStove', 'checkStove'] as const
export type MenuName = typeof MENUS[number]

const LanguageSchema = Type.Union([Type.Literal('en'), Type.Literal('sw')])
const WordSchema = Type.String({
  minLength: 1,
  maxLength: MAX_DOMAIN_WORD,
  pattern: '^[A-Za-z][A-Za-z \'-]*$',
  description: 'Plain letters (GSM-7)'
})
const DomainWordSchema = Type.Object({
  one: WordSchema,
  many: WordSchema
}, { additionalProperties: false, description: 'Singular and plural, e.g. stove / stoves' })

export const ProgrammeSchema = Type.Object({
  name: Type.String({
    minLength: 1,
    maxLength: MAX_DISPLAY_NAME,
    pattern: DISPLAY_NAME_PATTERN,
    description: 'Shown on the welcome screen, e.g. Clean Cooking'
  }),
  projectDid: Type.Optional(Type.String({
    maxLength: 200,
    pattern: '^did:[a-z0-9]+:[A-Za-z0-9._:%/-]+$',
    description: 'DID of the project domain the programme\'s devices belong to'
  })),
  deviceClass: Type.Optional(Type.String({
    maxLength: 200,
    pattern: '^did:[a-z0-9]+:[A-Za-z0-9._:%/-]+$',
    description: 'DID of the protocol (class) of the devices registered by USSD; default: the project\'s class'
  })),
  languages: Type.Optional(Type.Array(LanguageSchema, {
    minItems: 1,
    uniqueItems: true,
    description: 'Languages offered, the first one for phones that never chose (default: en, sw)'
  })),
  menus: Type.Optional(Type.Array(Type.Union(MENUS.map((menu) => Type.Literal(menu))), {
    uniqueItems: true,
    description: 'Menus turned on (default: none)'
  })),
  supportPhone: Type.Optional(Type.String({
    pattern: SUPPORT_PHONE_PATTERN,
    description: 'Support line named in texts that send users to support'
  })),
  domainWord: Type.Optional(Type.Object({
    en: Type.Optional(DomainWordSchema),
    sw: Type.Optional(DomainWordSchema)
  }, { additionalProperties: false, description: 'What the programme calls its domains, per language' }))
}, { additionalProperties: false })

/** `USSD_PROGRAMMES_FILE`: a programme per service code (JSON, or YAML with the codes quoted). */
export const ProgrammesFileSchema = Type.Object({
  programmes: Type.Record(Type.String({ pattern: SERVICE_CODE_PATTERN }), ProgrammeSchema, {
    minProperties: 1,
    additionalProperties: false,
    description: 'Programmes by service code, e.g. "*384#"'
  })
}, { additionalProperties: false })

export type ProgrammeEntry = Static<typeof ProgrammeSchema>
export type ProgrammesFile = Static<typeof ProgrammesFileSchema>
