import { useSyncExternalStore } from 'react'
import { useTranslation } from 'react-i18next'
import { isLanguage, type Language } from '@/config/languages'
import { useCapabilityInfo } from '@/api/capabilities/get-capabilities'
import { useProfile } from '@/api/account/profile'
import { languageName } from '@/lib/format'

/**
 * What the export extensions of the reference service add to a request (issue 11): leave out leads the
 * account has (`skip_owned`), the file's columns (`export_columns`), a spreadsheet-ready file in the
 * person's language (`file_locale`) and one email per column (`email_columns`, issue 25). Each is sent
 * only when the service lists it at /api/capabilities/.
 *
 * The columns, the file kind and the email columns are remembered per account in this browser; skipping owned leads is on
 * by default and lasts for the session (a person who turns it off for one export gets it back later).
 */

/** The interface's file columns, in its order (the service's list at /api/capabilities/ wins). */
export const ALL_COLUMNS = [
  'name',
  'email',
  'phone',
  'website',
  'instagram',
  'facebook',
  'address',
  'zipcode',
  'city',
  'level2_location',
  'level1_location',
  'country',
  'categories',
  'main_category',
  'rating',
  'review_count',
  'latitude',
  'longitude',
  'place_id',
  'collected_at',
] as const
export const CONTACT_COLUMNS = ['name', 'email', 'phone', 'website', 'city', 'country'] as const

export interface FilePreferences {
  /** The chosen columns in order; null = every column the service offers. */
  columns: string[] | null
  /** A file made for the person's language (headers, separator, decimal mark) rather than the interface's. */
  spreadsheet: boolean
  /** A lead's emails one per column (`email_1`, `email_2`, …) rather than in one cell. */
  splitEmails: boolean
}
const DEFAULTS: FilePreferences = { columns: null, spreadsheet: true, splitEmails: false }

let skipOwned = true
const listeners = new Set<() => void>()
const notify = () => listeners.forEach((l) => l())
const subscribe = (l: () => void) => {
  listeners.add(l)
  return () => listeners.delete(l)
}

const storageKey = (account: string) => `leads.export-file.${account}`
const cache = new Map<string, FilePreferences>()
function readPreferences(account: string | undefined): FilePreferences {
  if (!account) return DEFAULTS
  let prefs = cache.get(account)
  if (!prefs) {
    prefs = DEFAULTS
    try {
      const raw: unknown = JSON.parse(localStorage.getItem(storageKey(account)) ?? 'null')
      if (raw && typeof raw === 'object') {
        const r = raw as Record<string, unknown>
        const columns =
          Array.isArray(r.columns) && r.columns.every((c) => typeof c === 'string') && r.columns.length ? (r.columns as string[]) : null
        prefs = {
          columns,
          spreadsheet: typeof r.spreadsheet === 'boolean' ? r.spreadsheet : true,
          splitEmails: r.splitEmails === true,
        }
      }
    } catch {
      /* unreadable or private mode: the defaults */
    }
    cache.set(account, prefs)
  }
  return prefs
}
function writePreferences(account: string | undefined, prefs: FilePreferences) {
  if (!account) return
  cache.set(account, prefs)
  try {
    localStorage.setItem(storageKey(account), JSON.stringify(prefs))
  } catch {
    /* private mode: remembered for this page only */
  }
  notify()
}

/** Tests only: forget the session's choices. */
export function resetFileOptionsForTests() {
  skipOwned = true
  cache.clear()
  notify()
}

export interface ExportExtensions {
  skipOwned: boolean
  /** The service's columns, when it takes a column list. */
  columns: readonly string[] | null
  /** Whether the service writes files for the person's language. */
  fileLocale: boolean
  /** Whether the service writes one email per column. */
  emailColumns: boolean
}

/** The export extensions the service offers: undefined while asking. */
export function useExportExtensions(): ExportExtensions | undefined {
  const skip = useCapabilityInfo('skip_owned')
  const columns = useCapabilityInfo('export_columns')
  const locale = useCapabilityInfo('file_locale')
  const emails = useCapabilityInfo('email_columns')
  const { i18n } = useTranslation()
  if (skip === undefined || columns === undefined || locale === undefined || emails === undefined) return undefined
  const offered =
    columns && Array.isArray(columns.columns) ? (columns.columns as unknown[]).filter((c): c is string => typeof c === 'string') : null
  const languages = locale && Array.isArray(locale.languages) ? (locale.languages as unknown[]) : []
  return {
    skipOwned: skip !== null,
    columns: columns ? (offered?.length ? offered : ALL_COLUMNS) : null,
    fileLocale: locale !== null && languages.includes(i18n.resolvedLanguage),
    emailColumns: emails !== null && Array.isArray(emails.values) && emails.values.includes('split'),
  }
}

export function useFileOptions() {
  const { data: profile } = useProfile()
  const account = profile ? String(profile.id) : undefined
  const prefs = useSyncExternalStore(subscribe, () => readPreferences(account))
  const skip = useSyncExternalStore(subscribe, () => skipOwned)
  return {
    prefs,
    skipOwned: skip,
    setSkipOwned(on: boolean) {
      skipOwned = on
      notify()
    },
    setColumns(columns: string[] | null) {
      writePreferences(account, { ...prefs, columns })
    },
    setSpreadsheet(spreadsheet: boolean) {
      writePreferences(account, { ...prefs, spreadsheet })
    },
    setSplitEmails(splitEmails: boolean) {
      writePreferences(account, { ...prefs, splitEmails })
    },
  }
}

/** The chosen columns the service offers, in the chosen order (every offered one when none is chosen). */
export function chosenColumns(prefs: FilePreferences, offered: readonly string[]): string[] {
  const chosen = (prefs.columns ?? [...offered]).filter((c) => offered.includes(c))
  return chosen.length ? chosen : [...offered]
}

/**
 * The file's language as its own sentences name it mid-sentence ("polski", "français", "Deutsch"):
 * Intl's name, not the capitalised one of the language menu. The sentences are worded so that the name
 * stands uninflected ("Nagłówki: polski", not "w języku Polski").
 */
export const fileLanguageName = (lng: string) => languageName(lng, lng)

/** How a spreadsheet in `lng` expects numbers: its decimal mark, and the CSV separator that goes with it. */
export function spreadsheetConventions(lng: string): { decimal: string; separator: ';' | ',' } {
  const decimal = new Intl.NumberFormat(lng).formatToParts(1.5).find((p) => p.type === 'decimal')?.value ?? '.'
  return { decimal, separator: decimal === ',' ? ';' : ',' }
}

/** Whether the file has the email column: every file does when the service takes no column list. */
export const fileHasEmails = (ext: ExportExtensions, prefs: FilePreferences) =>
  !ext.columns || chosenColumns(prefs, ext.columns).includes('email')

interface ExtensionFields {
  skip_owned?: boolean
  columns?: string[]
  file_locale?: Language
  email_columns?: 'split'
}

/** The extension fields of the export request: only those the service offers. */
export function extensionFields(
  ext: ExportExtensions | undefined,
  options: { prefs: FilePreferences; skipOwned: boolean },
  lng: string,
): ExtensionFields {
  if (!ext) return {}
  const fields: ExtensionFields = {}
  if (ext.skipOwned) fields.skip_owned = options.skipOwned
  if (ext.columns && options.prefs.columns) fields.columns = chosenColumns(options.prefs, ext.columns)
  if (ext.fileLocale && options.prefs.spreadsheet && isLanguage(lng)) fields.file_locale = lng
  // the service's default is one cell: only a split is asked for, and only of a file with emails
  if (ext.emailColumns && options.prefs.splitEmails && fileHasEmails(ext, options.prefs)) fields.email_columns = 'split'
  return fields
}
