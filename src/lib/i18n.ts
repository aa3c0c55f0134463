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
 * the sign-in page does not carry every page's strings. Every other language is one file per
 * namespace, fetched when the language is chosen.
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

/** The build's version of the other languages' files (build/vite-plugins/locale-files.ts). */
declare const __LOCALES_VERSION__: string

type Strings = Record<string, unknown>

/**
 * The other languages' strings, fetched from the versioned addresses the build writes (a table of their
 * chunks, ~4 KB, would be part of every page's first load). jsdom has no server to fetch from, so the
 * tests import the files; the mode is known at build time, and the production bundle carries no table.
 */
const otherLanguage: (lng: Language, ns: Namespace) => Promise<Strings> =
  import.meta.env.MODE === 'test'
    ? (lng, ns) => {
        const files = import.meta.glob<{ default: Strings }>([
          '../../locales/*/*.json',
          '!../../locales/en/*.json',
          '!../../locales/*/mail.json',
        ])
        return files[`../../locales/${lng}/${ns}.json`]!().then((mod) => mod.default)
      }
    : async (lng, ns) => {
        const response = await fetch(`${import.meta.env.BASE_URL}locales/${__LOCALES_VERSION__}/${lng}/${ns}.json`)
        if (!response.ok) throw new Error(`${lng}/${ns}: HTTP ${response.status}`)
        return (await response.json()) as Strings
      }

/** Every namespace of the language, each once (a failed fetch is tried again at the next call). */
async function loadLanguage(lng: Language): Promise<void> {
  if (lng === 'en') return
  await Promise.all(
    NAMESPACES.map(async (ns) => {
      if (i18n.hasResourceBundle(lng, ns)) return
      i18n.addResourceBundle(lng, ns, await otherLanguage(lng, ns), true, true)
    }),
  )
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
