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

/**
 * Extension `email_columns` (issue 25): a lead's emails in one cell, `;`-joined (`joined`, the
 * interface's file), or one per column (`split`: `email_1`, `email_2`, …, as CRMs import them), as
 * many as the most any lead of the export has, at most MAX_EMAIL_COLUMNS (jobs/export-file.ts).
 */
export const EMAIL_COLUMNS = ['joined', 'split'] as const
export const MAX_EMAIL_COLUMNS = 5

const RTL = new Set(['he'])
const LOCALES = new URL('../../../../locales/', import.meta.url)

type ColumnStrings = Record<ExportColumn | 'sheet' | 'email_n', string>
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
  /** The file's header row: a column's name, or, for emails one per column, one name each. */
  headers: string[]
  delimiter: ',' | ';'
  /** Writes a number as that language's spreadsheets read it (no grouping). */
  decimal: (n: number) => string
  bom: boolean
  rtl: boolean
  sheetName: string
}

export const isFileLocale = (v: string): boolean => (LANGUAGES as readonly string[]).includes(v)

/**
 * The file's columns and how it is written. `emails`: how many columns the emails take, one per column;
 * null for one cell.
 */
export function fileLayout(locale: string | null, columns: readonly ExportColumn[] | null, emails: number | null): FileLayout {
  const chosen = [...(columns ?? EXPORT_COLUMNS)]
  const headers = (name: (c: ExportColumn) => string, emailName: (n: number) => string) =>
    chosen.flatMap((c) => (c === 'email' && emails !== null ? Array.from({ length: emails }, (_, i) => emailName(i + 1)) : [name(c)]))
  if (locale === null || !isFileLocale(locale)) {
    return {
      columns: chosen,
      headers: headers(String, (n) => `email_${n}`),
      delimiter: ',',
      decimal: String,
      bom: false,
      rtl: false,
      sheetName: 'Leads',
    }
  }
  const names = columnStrings(locale)
  const mark = new Intl.NumberFormat(locale).formatToParts(1.5).find((p) => p.type === 'decimal')?.value ?? '.'
  return {
    columns: chosen,
    headers: headers(
      (c) => names[c],
      (n) => names.email_n.replace('{{n}}', String(n)),
    ),
    delimiter: mark === ',' ? ';' : ',',
    decimal: mark === '.' ? String : (n) => String(n).replace('.', mark),
    bom: true,
    rtl: RTL.has(locale),
    // Excel: at most 31 characters, none of : \ / ? * [ ]
    sheetName: names.sheet.replace(/[:\\/?*[\]]/g, ' ').slice(0, 31) || 'Leads',
  }
}
