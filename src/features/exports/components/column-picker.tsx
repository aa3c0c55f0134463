import { useTranslation } from 'react-i18next'
import { Button } from '@/components/ui/button'
import { CONTACT_COLUMNS } from '../file-options'

/**
 * The file's columns, in order: the chosen ones first, each with a checkbox and buttons to move it, then
 * the others to add. Presets set the whole list. At least one column stays chosen. `null` means "every
 * column, in the service's order" (so a column the service adds later is included).
 */
export function ColumnPicker({
  offered,
  chosen,
  onChange,
}: {
  offered: readonly string[]
  chosen: string[]
  onChange: (next: string[] | null) => void
}) {
  const { t } = useTranslation('exports')
  const { t: tc } = useTranslation('columns')
  const label = (c: string) => tc(c as never, { defaultValue: c })
  const others = offered.filter((c) => !chosen.includes(c))
  const move = (i: number, by: -1 | 1) => {
    const next = [...chosen]
    ;[next[i], next[i + by]] = [next[i + by]!, next[i]!]
    onChange(next)
  }
  const contact = CONTACT_COLUMNS.filter((c) => offered.includes(c))
  return (
    <div className="mt-2 space-y-3">
      <div className="flex flex-wrap gap-2">
        <Button variant="secondary" onClick={() => onChange(contact)}>
          {t('presetContact')}
        </Button>
        <Button variant="secondary" onClick={() => onChange(null)}>
          {t('presetAll')}
        </Button>
      </div>
      <ol
        className="divide-y divide-slate-100 rounded-md border border-slate-200 dark:divide-slate-800 dark:border-slate-700"
        aria-label={t('columnsChosen')}
      >
        {chosen.map((c, i) => (
          <li key={c} className="flex items-center gap-2 px-2">
            <label className="flex min-h-10 flex-1 items-center gap-2">
              <input
                type="checkbox"
                className="size-4 accent-brand-600"
                checked
                disabled={chosen.length === 1}
                onChange={() => onChange(chosen.filter((x) => x !== c))}
              />
              <span className="w-6 text-end text-xs text-slate-500 tabular-nums dark:text-slate-400">{i + 1}.</span>
              <span>{label(c)}</span>
            </label>
            <Button
              variant="ghost"
              className="px-2"
              disabled={i === 0}
              aria-label={t('moveUp', { name: label(c) })}
              onClick={() => move(i, -1)}
            >
              <span aria-hidden="true">↑</span>
            </Button>
            <Button
              variant="ghost"
              className="px-2"
              disabled={i === chosen.length - 1}
              aria-label={t('moveDown', { name: label(c) })}
              onClick={() => move(i, 1)}
            >
              <span aria-hidden="true">↓</span>
            </Button>
          </li>
        ))}
      </ol>
      {chosen.length === 1 && <p className="text-xs text-slate-600 dark:text-slate-400">{t('columnsNeedOne')}</p>}
      {others.length > 0 && (
        <ul className="grid grid-cols-1 gap-x-4 sm:grid-cols-2" aria-label={t('columnsOthers')}>
          {others.map((c) => (
            <li key={c}>
              <label className="flex min-h-10 items-center gap-2">
                <input type="checkbox" className="size-4 accent-brand-600" checked={false} onChange={() => onChange([...chosen, c])} />
                <span>{label(c)}</span>
              </label>
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}
