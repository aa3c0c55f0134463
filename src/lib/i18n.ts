import i18n from 'i18next'
import { initReactI18next } from 'react-i18next'
import { isLanguage, NAMESPACES, RTL_LANGUAGES, type Language, type Namespace } from '@/config/languages'
import { setPageHint } from './page-hints'
import common from '../../locales/en/common.json'
import auth from '../../locales/en/auth.json'
import type search from '../../locales/en/search.json'
import type exportsNs from '../../locales/en/exports.json'
import type history from '../../locales/en/history.json'
import type account from '../../locales/en/account.json'
import type apikeys from '../../locales/en/apikeys.json'
import type webhooks from '../../locales/en/webhooks.json'
import type plans from '../../locales/en/plans.json'
import type errors from '../../locales/en/errors.json'
import type columns from '../../locales/en/columns.json'
import type map from '../../locales/en/map.json'
import type lists from '../../locales/en/lists.json'

/** English is the source of the typed keys (src/types/i18next.d.ts). */
export interface EnResources {
  common: typeof common
  auth: typeof auth
  search: typeof search
  exports: typeof exportsNs
  history: typeof history
  account: typeof account
  apikeys: typeof apikeys
  webhooks: typeof webhooks
  plans: typeof plans
  errors: typeof errors
  columns: typeof columns
  map: typeof map
  lists: typeof lists
}

/**
 * English of the signed-out pages ships in the first load; the English of the signed-in pages
 * loads with their code (router.tsx awaits `loadPageNamespaces()` beside each page module), so
 * the sign-in page does not carry every page's strings. Every other language is one lazy chunk
 * per namespace, loaded when the language is chosen.
 */
export const enResources = { common, auth } as const
const BUNDLED: ReadonlySet<string> = new Set(Object.keys(enResources))

const lazyEnglish = import.meta.glob<{ default: Record<string, unknown> }>([
  '../../locales/en/*.json',
  '!../../locales/en/common.json',
  '!../../locales/en/auth.json',
  '!../../locales/en/mail.json',
])

/**
 * Namespaces no page lists: the API client fetches `errors` before it throws an error, so a
 * session without errors never downloads them (lib/error-codes.ts).
 */
export const ON_DEMAND_NAMESPACES: ReadonlySet<Namespace> = new Set(['errors', 'columns'])

/** The namespaces that load with their pages (router.tsx names each page's). */
export type PageNamespace = Exclude<Namespace, keyof typeof enResources>
export const PAGE_NAMESPACES = NAMESPACES.filter((ns): ns is PageNamespace => !BUNDLED.has(ns))

const pageNamespaces = new Map<PageNamespace, Promise<void>>()
/** Tests only: forget which English namespaces were loaded (as on a fresh page). */
export const resetLoadedNamespacesForTests = () => pageNamespaces.clear()
/**
 * English strings of signed-in pages (also the fallback of every other language), each namespace
 * once; a page loads only its own (the search page need not carry the account page's strings).
 */
export function loadPageNamespaces(namespaces: readonly PageNamespace[] = PAGE_NAMESPACES): Promise<void> {
  return Promise.all(
    namespaces.map((ns) => {
      let loading = pageNamespaces.get(ns)
      if (!loading) {
        const loader = lazyEnglish[`../../locales/en/${ns}.json`]
        loading = (loader ? loader() : Promise.reject(new Error(`no English strings for ${ns}`))).then((mod) => {
          i18n.addResourceBundle('en', ns, mod.default, true, true)
        })
        loading.catch(() => pageNamespaces.delete(ns)) // a failed chunk load may succeed next time
        pageNamespaces.set(ns, loading)
      }
      return loading
    }),
  ).then(() => undefined)
}

const lazyLocales = import.meta.glob<{ default: Record<string, unknown> }>([
  '../../locales/*/*.json',
  '!../../locales/en/*.json',
  '!../../locales/*/mail.json', // the service's mails
  '!../../locales/*/map.json', // the map's own chunk lists them (addFeatureLocales)
])

/**
 * Namespaces whose other languages a lazily loaded feature lists itself (the map's): the tables here are
 * part of every page's first load, and the map's 26 entries cost it 0.3 KB.
 */
type LocaleChunk = () => Promise<{ default: Record<string, unknown> }>
const featureLocales = new Map<string, (lng: string) => LocaleChunk | undefined>()

async function loadLanguage(lng: Language): Promise<void> {
  if (lng === 'en') return
  await Promise.all(
    NAMESPACES.map(async (ns) => {
      const loader = lazyLocales[`../../locales/${lng}/${ns}.json`] ?? featureLocales.get(ns)?.(lng)
      // a namespace loaded with the language before, or one whose feature came after the language did
      if (!loader || i18n.hasResourceBundle(lng, ns)) return
      const mod = await loader()
      i18n.addResourceBundle(lng, ns, mod.default, true, true)
    }),
  )
}

/**
 * A feature's own locale chunks of `ns` (`chunk(lng)`) in the languages other than English, known from now
 * on to every language chosen; the one in use loads now.
 */
export function addFeatureLocales(ns: PageNamespace, chunk: (lng: string) => LocaleChunk | undefined): Promise<void> {
  featureLocales.set(ns, chunk)
  return loadLanguage(i18n.language as Language)
}

const STORAGE_KEY = 'leads.language'

/**
 * The choice, for this browser's next start, written at once (before the language's strings load and
 * before the profile answers): the storage storedLanguage() reads and the hint the service's
 * prerendered page follows.
 */
export function rememberLanguage(lng: Language) {
  setPageHint('leads.lang', lng)
  try {
    localStorage.setItem(STORAGE_KEY, lng)
  } catch {
    /* private mode: the profile still keeps it */
  }
}

export function storedLanguage(): Language | null {
  try {
    const v = localStorage.getItem(STORAGE_KEY)
    return isLanguage(v) ? v : null
  } catch {
    return null
  }
}

function browserLanguage(): Language {
  for (const l of navigator.languages ?? [navigator.language]) {
    const base = l.slice(0, 2).toLowerCase()
    if (base === 'no' || base === 'nn') return 'nb'
    if (isLanguage(base)) return base
  }
  return 'en'
}

function applyDocumentLanguage(lng: string) {
  if (typeof document === 'undefined') return // prerendering (src/boot/prerender.tsx)
  setPageHint('leads.lang', lng)
  document.documentElement.lang = lng
  document.documentElement.dir = RTL_LANGUAGES.has(lng as Language) ? 'rtl' : 'ltr'
}

/** Loads the language's chunk, switches, and sets <html lang dir>. */
export async function changeLanguage(lng: Language): Promise<void> {
  await loadLanguage(lng)
  await i18n.changeLanguage(lng)
  try {
    localStorage.setItem(STORAGE_KEY, lng)
  } catch {
    /* private mode: the choice lasts for this page only */
  }
}

export async function initI18n(initial: Language = storedLanguage() ?? browserLanguage()): Promise<typeof i18n> {
  i18n.on('languageChanged', applyDocumentLanguage)
  await i18n.use(initReactI18next).init({
    lng: 'en',
    fallbackLng: 'en',
    ns: [...NAMESPACES],
    defaultNS: 'common',
    resources: { en: enResources },
    interpolation: { escapeValue: false },
    returnNull: false,
  })
  applyDocumentLanguage('en')
  if (initial !== 'en') await changeLanguage(initial)
  return i18n
}

export { i18n }
