import { readFileSync } from 'node:fs'
import { LANGUAGES } from '../../lib/schemas.ts'

/**
 * Spreadsheet-ready files (issue 11, extension `file_locale`): a file made for a language has its
 * column headers in that language (locales/<lng>/columns.json, the same names the dashboard's column
 * picker shows), the CSV separator and decimal mark that language's spreadsheets expect (`;` and `,`
 * where the decimal mark is a comma, as Excel does with the list separator of such locales), a UTF-8
 * byte order mark so Excel reads non-Latin names as UTF-8, and an Excel sheet that reads right to left
 * for Hebrew. Without a locale the file is the interface's: English field names, `,`, `.`, no mark.
 */

export const EXPORT_COLUMNS = [
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
export type ExportColumn = (typeof EXPORT_COLUMNS)[number]

const RTL = new Set(['he'])
const LOCALES = new URL('../../../../locales/', import.meta.url)

type ColumnStrings = Record<ExportColumn | 'sheet', string>
const strings = new Map<string, ColumnStrings>()
function columnStrings(lng: string): ColumnStrings {
  let s = strings.get(lng)
  if (!s) {
    const en = lng === 'en' ? null : columnStrings('en')
    try {
      s = { ...en, ...JSON.parse(readFileSync(new URL(`${lng}/columns.json`, LOCALES), 'utf8')) } as ColumnStrings
    } catch (err) {
      // English must exist; another missing language falls back to English (the locale check fails on it)
      if (!en) throw err
      s = en
    }
    strings.set(lng, s)
  }
  return s
}

export interface FileLayout {
  columns: ExportColumn[]
  headers: string[]
  delimiter: ',' | ';'
  /** Writes a number as that language's spreadsheets read it (no grouping). */
  decimal: (n: number) => string
  bom: boolean
  rtl: boolean
  sheetName: string
}

export const isFileLocale = (v: string): boolean => (LANGUAGES as readonly string[]).includes(v)

export function fileLayout(locale: string | null, columns: readonly ExportColumn[] | null): FileLayout {
  const chosen = [...(columns ?? EXPORT_COLUMNS)]
  if (locale === null || !isFileLocale(locale)) {
    return { columns: chosen, headers: chosen, delimiter: ',', decimal: String, bom: false, rtl: false, sheetName: 'Leads' }
  }
  const names = columnStrings(locale)
  const mark = new Intl.NumberFormat(locale).formatToParts(1.5).find((p) => p.type === 'decimal')?.value ?? '.'
  return {
    columns: chosen,
    headers: chosen.map((c) => names[c]),
    delimiter: mark === ',' ? ';' : ',',
    decimal: mark === '.' ? String : (n) => String(n).replace('.', mark),
    bom: true,
    rtl: RTL.has(locale),
    // Excel: at most 31 characters, none of : \ / ? * [ ]
    sheetName: names.sheet.replace(/[:\\/?*[\]]/g, ' ').slice(0, 31) || 'Leads',
  }
}
