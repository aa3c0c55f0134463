/** Cache keys of the lists (extension `lists`, issue 27; TkDodo's key factories). */
export type RowStatus = 'matched' | 'ambiguous' | 'unmatched'

export const listKeys = {
  all: ['lists'] as const,
  index: () => [...listKeys.all, 'index'] as const,
  detail: (listId: string) => [...listKeys.all, 'detail', listId] as const,
  report: (listId: string) => [...listKeys.all, 'report', listId] as const,
  /** Every page of a list's rows, whatever the filter (what a changed match makes stale). */
  rowsOf: (listId: string) => [...listKeys.all, 'rows', listId] as const,
  rows: (listId: string, status: RowStatus | null, page: number) => [...listKeys.rowsOf(listId), { status, page }] as const,
}
