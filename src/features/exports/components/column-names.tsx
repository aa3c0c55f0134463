import { useTranslation } from 'react-i18next'
import { formatNumber, listParts } from '@/lib/format'

/** Columns named before the rest are counted: three names fit a line of the confirmation at 360 px. */
const NAMED = 3

/**
 * The file's columns by name, in the file's order: all of them when they are few, else the first
 * ones and how many more ("Name, Email, Phone and 4 more"), the whole list one click (or Enter) away.
 */
export function ColumnNames({ columns }: { columns: readonly string[] }) {
  const { t, i18n } = useTranslation('exports')
  const { t: tc } = useTranslation('columns')
  const lng = i18n.language
  const names = columns.map((c) => tc(c as never, { defaultValue: c }))
  const list = (items: string[]) =>
    listParts(lng, items)
      .map((p) => p.value)
      .join('')
  const rest = names.length - NAMED
  // "and 1 more" is no shorter than the name it stands for
  if (rest <= 1) return <span data-testid="export-column-names">{list(names)}</span>
  return (
    <details data-testid="export-column-names">
      <summary className="cursor-pointer">
        {list([...names.slice(0, NAMED), t('columnsMore', { count: rest, formatted: formatNumber(lng, rest) })])}
      </summary>
      <p className="mt-1">{list(names)}</p>
    </details>
  )
}
