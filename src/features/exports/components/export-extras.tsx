import { useQuery } from '@tanstack/react-query'
import { lazy, Suspense, useId, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Button } from '@/components/ui/button'
import { previewQuery, type ExportFormat, type SearchFilters } from '@/features/search/filters'
import { formatNumber, ownLanguageName } from '@/lib/format'
import { isLanguage } from '@/config/languages'
import { useProfile } from '@/lib/api/profile'
import { loadPageNamespaces } from '@/lib/i18n'
import { ownedOptions } from '../api/owned'
import { chosenColumns, spreadsheetConventions, useExportExtensions, useFileOptions } from '../file-options'

// the picker and the column names load when the person opens it
const ColumnPicker = lazy(() =>
  Promise.all([import('./column-picker'), loadPageNamespaces(['columns'])]).then(([m]) => ({ default: m.ColumnPicker })),
)

/**
 * What the export card offers beyond the cap and format (issue 11): a way to spend purchased credits
 * that expire within 7 days (the cap set to exactly them), and the export extensions of the reference
 * service: how many of the matching leads the account already has and the choice to skip them, the
 * file's columns, and a spreadsheet-ready file in the person's language. A service without the
 * extensions shows none of those.
 */
export function ExportExtras({ filters, ready, onCap }: { filters: SearchFilters; ready: boolean; onCap: (cap: number) => void }) {
  const ext = useExportExtensions()
  const expiring = useProfile().data?.purchased_credits_expiring_soon ?? 0
  const any = ext && (ext.skipOwned || ext.columns || ext.fileLocale)
  if (!any && expiring <= 0) return null
  return (
    <div className="mt-4 space-y-4 border-t border-slate-200 pt-4 dark:border-slate-700">
      {expiring > 0 && <ExpiringCredits expiring={expiring} cap={filters.cap} onCap={onCap} />}
      {ext?.skipOwned && <OwnedLeads filters={filters} ready={ready} />}
      {ext?.columns && <Columns offered={ext.columns} />}
      {ext?.fileLocale && <FileKind format={filters.format} />}
    </div>
  )
}

/** Purchased credits about to expire: one click caps this export to exactly them (charged only after the confirmation). */
function ExpiringCredits({ expiring, cap, onCap }: { expiring: number; cap: number | null; onCap: (cap: number) => void }) {
  const { t, i18n } = useTranslation('exports')
  const formatted = formatNumber(i18n.language, expiring)
  return (
    <div className="space-y-2 rounded-md bg-amber-50 p-3 text-sm text-amber-900 dark:bg-amber-950/40 dark:text-amber-100" data-testid="expiring-hint">
      <p>{t('expiringHint', { formatted })}</p>
      {cap !== expiring && (
        <Button variant="secondary" onClick={() => onCap(expiring)}>
          {t('expiringCap', { formatted })}
        </Button>
      )}
    </div>
  )
}

function OwnedLeads({ filters, ready }: { filters: SearchFilters; ready: boolean }) {
  const { t, i18n } = useTranslation('exports')
  const n = (v: number) => formatNumber(i18n.language, v)
  const owned = useQuery({ ...ownedOptions(previewQuery(filters)), enabled: ready })
  const { skipOwned, setSkipOwned } = useFileOptions()
  const count = owned.data?.owned_count ?? 0
  // nothing to say until the account has some of these leads
  if (count === 0) return null
  return (
    <div className="space-y-1 text-sm" data-testid="owned-leads" data-owned={count}>
      <p>{t('ownedLine', { formatted: n(count), total: n(owned.data?.totalCount ?? 0) })}</p>
      <label className="flex min-h-10 items-center gap-2">
        <input type="checkbox" className="size-4 accent-brand-600" checked={skipOwned} onChange={(e) => setSkipOwned(e.target.checked)} />
        <span>
          {t('skipOwned')}{' '}
          <span className="text-slate-600 dark:text-slate-400">({t('skipOwnedSaves', { formatted: n(count) })})</span>
        </span>
      </label>
    </div>
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
  const language = isLanguage(lng) ? ownLanguageName(lng) : lng
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
      <legend className="mb-1 font-medium">{t('fileKind')}</legend>
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
