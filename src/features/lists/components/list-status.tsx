import { useTranslation } from 'react-i18next'
import type { List } from '@/api/lists/get-lists'
import { formatPercent } from '@/lib/format'

const TONE: Record<string, string> = {
  matched: 'bg-emerald-100 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-100',
  failed: 'bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-100',
  queued: 'bg-sky-100 text-sky-900 dark:bg-sky-950 dark:text-sky-100',
  matching: 'bg-sky-100 text-sky-900 dark:bg-sky-950 dark:text-sky-100',
}
const KNOWN = ['uploaded', 'queued', 'matching', 'matched', 'failed', 'cancelled'] as const
type Known = (typeof KNOWN)[number]
const isKnown = (s: string): s is Known => (KNOWN as readonly string[]).includes(s)

/** The share of rows the job has done, from 0 to 1. */
export const progressOf = (list: Pick<List, 'matched_rows' | 'total_rows'>) =>
  list.total_rows > 0 ? Math.min(1, list.matched_rows / list.total_rows) : 0

/** A list's state in words, with the share done while it is matched. */
export function ListStatus({ list }: { list: Pick<List, 'status' | 'matched_rows' | 'total_rows'> }) {
  const { t, i18n } = useTranslation('lists')
  const percent = formatPercent(i18n.language, progressOf(list))
  return (
    <span
      className={`inline-block whitespace-nowrap rounded-full px-2 py-0.5 text-xs font-medium ${
        TONE[list.status] ?? 'bg-slate-200 text-slate-800 dark:bg-slate-800 dark:text-slate-200'
      }`}
    >
      {isKnown(list.status) ? t(`status.${list.status}`, { percent }) : list.status}
    </span>
  )
}
