/** The 27 values of `preferred_language` (interface part 2.1), each a dashboard language. */
export const LANGUAGES = [
  'bg',
  'cs',
  'da',
  'de',
  'el',
  'fr',
  'en',
  'es',
  'et',
  'fi',
  'he',
  'hr',
  'hu',
  'it',
  'lt',
  'lv',
  'nb',
  'nl',
  'pl',
  'pt',
  'ro',
  'sk',
  'sl',
  'sr',
  'sv',
  'th',
  'tr',
] as const
export type Language = (typeof LANGUAGES)[number]

export const RTL_LANGUAGES: ReadonlySet<Language> = new Set(['he'])

export const isLanguage = (v: unknown): v is Language => typeof v === 'string' && (LANGUAGES as readonly string[]).includes(v)

/**
 * Namespaces of locales/<lng>/<ns>.json the dashboard loads (`errors` when an error first arrives,
 * `columns` with the export file options; the reference service writes file headers from it too).
 */
export const NAMESPACES = [
  'common',
  'auth',
  'search',
  'exports',
  'history',
  'account',
  'apikeys',
  'webhooks',
  'plans',
  'errors',
  'columns',
  'map',
  'lists',
] as const
export type Namespace = (typeof NAMESPACES)[number]

/** Namespaces of locales/<lng>/<ns>.json the reference service reads (its mails); checked like the others. */
export const SERVICE_NAMESPACES = ['mail'] as const
