import type { Language } from '../../db/types.ts'
import { en, type MessageKey } from './messages-en.ts'
import { sw } from './messages-sw.ts'

export type { MessageKey }
export type MessageParams = Record<string, string | number>
export const LANGUAGES: readonly Language[] = ['en', 'sw']

const dictionaries: Record<Language, Record<MessageKey, string>> = { en, sw }

/** The text of `key` in `language`, with `{placeholders}` filled from `params`. */
export function translate (language: Language, key: MessageKey, params?: MessageParams): string {
  const template = dictionaries[language][key]
  if (params === undefined) return template
  return template.replace(/\{(\w+)\}/g, (match, name: string) => (name in params ? String(params[name]) : match))
}

export type Translator = (key: MessageKey, params?: MessageParams) => string
export const translator = (language: Language): Translator => (key, params) => translate(language, key, params)
