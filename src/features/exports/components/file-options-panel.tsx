import { lazy, Suspense, useId, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Button } from '@/components/ui/button'
import type { ExportFormat } from '@/domain/search-filters'
import { formatNumber } from '@/lib/format'
import { loadPageNamespaces } from '@/lib/i18n'
import {
  chosenColumns,
  fileHasEmails,
  fileLanguageName,
  spreadsheetConventions,
  useFileOptions,
  type ExportExtensions,
} from '../file-options'

// the picker and the column names load when the person opens it
const ColumnPicker = lazy(() =>
  Promise.all([import('./column-picker'), loadPageNamespaces(['columns'])]).then(([m]) => ({ default: m.ColumnPicker })),
)

/**
 * The file's columns and kind (extensions `export_columns`, `file_locale`, `email_columns`): loaded when
 * the person opens the file options.
 */
export function FileOptionsPanel({ ext, format }: { ext: ExportExtensions; format: ExportFormat }) {
  const { prefs } = useFileOptions()
  return (
    <div className="space-y-4">
      {ext.columns && <Columns offered={ext.columns} />}
      {ext.emailColumns && fileHasEmails(ext, prefs) && <EmailColumns />}
      {ext.fileLocale && <FileKind format={format} />}
    </div>
  )
}

/** CRMs import `email_1`, `email_2`, … better than several emails in one cell (issue 25). */
function EmailColumns() {
  const { t } = useTranslation('exports')
  const { prefs, setSplitEmails } = useFileOptions()
  return (
    <label className="grid min-h-10 grid-cols-[auto_1fr] items-start gap-x-2 py-1 text-sm">
      <input
        type="checkbox"
        className="mt-0.5 size-4 shrink-0 accent-brand-600"
        checked={prefs.splitEmails}
        onChange={(e) => setSplitEmails(e.target.checked)}
      />
      <span className="font-medium">{t('emailColumnsSplit')}</span>
      <span className="col-start-2 text-xs text-slate-600 dark:text-slate-400">{t('emailColumnsHint')}</span>
    </label>
  )
}

function Columns({ offered }: { offered: readonly string[] }) {
  const { t, i18n } = useTranslation('exports')
  const n = (v: number) => formatNumber(i18n.language, v)
  const { prefs, setColumns } = useFileOptions()
  const [open, setOpen] = useState(false)
  const panel = useId()
  const chosen = chosenColumns(prefs, offered)
  return (
    <div className="text-sm">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p>
          <span className="font-medium">{t('columnsTitle')}</span>{' '}
          <span data-testid="columns-summary">
            {chosen.length === offered.length && prefs.columns === null
              ? t('columnsAll', { formatted: n(offered.length) })
              : t('columnsSome', { chosen: n(chosen.length), total: n(offered.length) })}
          </span>
        </p>
        <Button variant="secondary" aria-expanded={open} aria-controls={panel} onClick={() => setOpen(!open)}>
          {open ? t('columnsDone') : t('chooseColumns')}
        </Button>
      </div>
      <div id={panel} hidden={!open}>
        {open && (
          <Suspense fallback={null}>
            <ColumnPicker offered={offered} chosen={chosen} onChange={(next) => setColumns(next)} />
          </Suspense>
        )}
      </div>
    </div>
  )
}

function FileKind({ format }: { format: ExportFormat }) {
  const { t, i18n } = useTranslation('exports')
  const { prefs, setSpreadsheet } = useFileOptions()
  const name = useId()
  const lng = i18n.resolvedLanguage ?? 'en'
  const language = fileLanguageName(lng)
  const { decimal, separator } = spreadsheetConventions(lng)
  const options = [
    {
      value: true,
      label: t('fileSpreadsheet', { language }),
      hint: format === 'csv' ? t('fileSpreadsheetHint', { language, separator, decimal }) : t('fileSpreadsheetHintExcel', { language }),
    },
    { value: false, label: t('filePlain'), hint: t('filePlainHint') },
  ]
  return (
    <fieldset className="text-sm">
      <legend className="mb-1 font-medium">{t('fileKindTitle')}</legend>
      <div className="space-y-1">
        {options.map((o) => (
          <label key={String(o.value)} className="grid min-h-10 grid-cols-[auto_1fr] items-start gap-x-2 py-1">
            <input
              type="radio"
              name={name}
              className="mt-0.5 size-4 shrink-0 accent-brand-600"
              checked={prefs.spreadsheet === o.value}
              onChange={() => setSpreadsheet(o.value)}
            />
            {o.label}
            <span className="col-start-2 text-xs text-slate-600 dark:text-slate-400">{o.hint}</span>
          </label>
        ))}
      </div>
    </fieldset>
  )
}
