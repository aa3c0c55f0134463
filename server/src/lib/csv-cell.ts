/**
 * CSV formula injection (docs/security.md): a spreadsheet opening the CSV runs a cell that starts
 * with `=`, `+`, `-` or `@` (tab and CR too) as a formula, and listing data (names, addresses,
 * websites, social links…) comes from third parties. Such a text cell gets a leading `'`, which
 * spreadsheets show as text. Exception: `+`/`-` followed only by digits, spaces and `( ) . / -` — a
 * phone number like `+49 30 1234-56` or a negative number — is left alone: it holds no function or
 * reference, so it cannot call anything. XLSX needs none of this: exceljs writes strings as text
 * cells, never as formulas.
 *
 * Every SEGMENT of a cell is checked the same way (after leading spaces and quotes), a segment being
 * the text after a `;` or `,` (Excel in `;`-separator locales — DE, FR, … — splits `Shop;=1+1` into
 * two cells when it ignores the quoting) or after a CR, LF or tab (a spreadsheet that splits a pasted
 * or re-imported cell on line breaks or tabs sees `Shop\n=1+1` as a new cell starting with `=`). A
 * risky segment gets its `'` too (`Shop;'=1+1`, `Shop\n'=1+1`).
 */
export type Cell = string | number | null

const FORMULA_START = /^[=@\t\r]/
const SIGN_START = /^[+-]/
const PLAIN_NUMBER = /^[+-][\d ()./-]*$/
const risky = (segment: string) => FORMULA_START.test(segment) || (SIGN_START.test(segment) && !PLAIN_NUMBER.test(segment))

/** A separator, then spaces and quotes (the lead), then the segment up to the next separator. */
const SEGMENT = /([;,\r\n\t][\s"']*)([^;,\r\n\t]*)/g

export function csvSafe(cell: Cell): Cell {
  if (typeof cell !== 'string') return cell
  if (risky(cell)) cell = `'${cell}`
  return cell.replace(SEGMENT, (all, lead: string, segment: string) => (risky(segment) ? `${lead}'${segment}` : all))
}
