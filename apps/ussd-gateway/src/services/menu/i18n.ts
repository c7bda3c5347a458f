import type { Language } from '../../db/types.ts'
import { en, type MessageKey } from './messages-en.ts'
import { sw } from './messages-sw.ts'

export type { MessageKey }
/** A message filling another's placeholder, translated in the same language (a duration, say). */
export interface MessageRef { key: MessageKey, params?: Record<string, string | number> }
export type MessageParams = Record<string, string | number | MessageRef>
export const LANGUAGES: readonly Language[] = ['en', 'sw']

const dictionaries: Record<Language, Record<MessageKey, string>> = { en, sw }

/** The text of `key` in `language`, with `{placeholders}` filled from `params`. */
export function translate (language: Language, key: MessageKey, params?: MessageParams): string {
  return fill(language, dictionaries[language][key], params)
}

/** `template` (a text in `language`) with `{placeholders}` filled from `params`, references translated. */
export function fill (language: Language, template: string, params?: MessageParams): string {
  if (params === undefined) return template
  return template.replace(/\{(\w+)\}/g, (match, name: string) => {
    const value = params[name]
    if (value === undefined) return match
    return typeof value === 'object' ? translate(language, value.key, value.params) : String(value)
  })
}

export type Translator = (key: MessageKey, params?: MessageParams) => string
export const translator = (language: Language): Translator => (key, params) => translate(language, key, params)
