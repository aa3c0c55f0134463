/**
 * CSV formula injection (docs/security.md): a spreadsheet opening the CSV runs a cell that starts
 * with `=`, `+`, `-` or `@` (tab and CR too) as a formula, and listing data (names, addresses,
 * websites, social links…) comes from third parties. Such a text cell gets a leading `'`, which
 * spreadsheets show as text. Exception: `+`/`-` followed only by digits, spaces and `( ) . / -` — a
 * phone number like `+49 30 1234-56` or a negative number — is left alone: it holds no function or
 * reference, so it cannot call anything. XLSX needs none of this: its text cells are never formulas.
 *
 * Every SEGMENT of a cell is checked the same way (after leading spaces and quotes), a segment being
 * the text after a `;` or `,` (Excel in `;`-separator locales — DE, FR, … — splits `Shop;=1+1` into
 * two cells when it ignores the quoting) or after a CR, LF or tab (a spreadsheet that splits a pasted
 * or re-imported cell on line breaks or tabs sees `Shop\n=1+1` as a new cell starting with `=`). A
 * risky segment gets its `'` too (`Shop;'=1+1`, `Shop\n'=1+1`).
 */

/** A cell or segment that starts like a formula (see above). */
const RISKY = /^(?:[=@\t\r]|[+-](?![\d ()./-]*$))/
/** A separator, then spaces and quotes (the lead), then the segment up to the next separator. */
const SEGMENT = /([;,\r\n\t][\s"']*)([^;,\r\n\t]*)/g
/** Whether any segment is risky: the test SEGMENT's replacement makes, on the whole text at once. */
const RISKY_SEGMENT = /[;,\r\n\t][\s"']*(?:[=@]|[+-](?![\d ()./-]*(?:[;,\r\n\t]|$)))/

export function csvSafe(text: string): string {
  const safe = RISKY.test(text) ? `'${text}` : text
  return RISKY_SEGMENT.test(safe)
    ? safe.replace(SEGMENT, (all, lead: string, segment: string) => (RISKY.test(segment) ? `${lead}'${segment}` : all))
    : safe
}

/** What csvField changes: a risky start, or a separator or character that is quoted (then maybe a risky segment). */
const NOTABLE = /^(?:[=@\t\r]|[+-](?![\d ()./-]*$))|[",;\r\n\t]/
const QUOTED = { ',': /[",;\r\n]/, ';': /[";\r\n]/ }

/**
 * A text field of the export's CSV: escaped as above, then written as csv-stringify writes it with
 * RFC 4180's rules and the file's options: quoted when it holds a quote, a CR or LF (a lone one would
 * split the row), the separator or a `;` (Excel in `;`-separator locales splits on it even in a `,`
 * file), quotes doubled. Most fields hold none of that and are returned as they are.
 * server/test/export-file.test.ts holds it to csv-stringify's bytes.
 */
export function csvField(text: string, delimiter: ',' | ';'): string {
  if (!NOTABLE.test(text)) return text
  const safe = csvSafe(text)
  return QUOTED[delimiter].test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe
}
