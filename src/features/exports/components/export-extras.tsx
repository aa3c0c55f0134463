import { useQuery } from '@tanstack/react-query'
import { lazy, Suspense, useId, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Button } from '@/components/ui/button'
import { previewQuery, type ExportFormat, type SearchFilters } from '@/domain/search-filters'
import { formatNumber } from '@/lib/format'
import { useCapability } from '@/api/capabilities/get-capabilities'
import { capToSpendExpiring, useProfile, type CreditLot } from '@/api/account/profile'
import { loadPageNamespaces } from '@/lib/i18n'
import { ownedOptions } from '@/api/exports/owned'
import { useExportExtensions, useFileOptions, type ExportExtensions } from '../file-options'

// columns, file kind and email columns load when the person opens the file options (with the export strings they use)
const FileOptionsPanel = lazy(() =>
  Promise.all([import('./file-options-panel'), loadPageNamespaces(['exports'])]).then(([m]) => ({ default: m.FileOptionsPanel })),
)

/**
 * What the export card offers beyond the cap and format (issue 11): a way to spend purchased credits
 * that expire within 7 days (the cap set to exactly them), and the export extensions of the reference
 * service: how many of the matching leads the account already has and the choice to skip them, the
 * file's columns, a spreadsheet-ready file in the person's language, and one email per column. A service without the
 * extensions shows none of those.
 */
export function ExportExtras({ filters, ready, onCap }: { filters: SearchFilters; ready: boolean; onCap: (cap: number) => void }) {
  const ext = useExportExtensions()
  const profile = useProfile().data
  const expiring = profile?.purchased_credits_expiring_soon ?? 0
  const any = ext && (ext.skipOwned || ext.columns || ext.fileLocale || ext.emailColumns)
  if (!any && expiring <= 0) return null
  return (
    <div className="mt-4 space-y-4 border-t border-slate-200 pt-4 dark:border-slate-700">
      {expiring > 0 && <ExpiringCredits expiring={expiring} lots={profile?.credit_lots} cap={filters.cap} onCap={onCap} />}
      {ext?.skipOwned && <OwnedLeads filters={filters} ready={ready} />}
      {ext && (ext.columns || ext.fileLocale || ext.emailColumns) && <FileOptions ext={ext} format={filters.format} />}
    </div>
  )
}

function FileOptions({ ext, format }: { ext: ExportExtensions; format: ExportFormat }) {
  const { t } = useTranslation('search')
  const [open, setOpen] = useState(false)
  const panel = useId()
  return (
    <div className="text-sm">
      <Button variant="secondary" aria-expanded={open} aria-controls={panel} onClick={() => setOpen(!open)}>
        {t('exportFile.fileKind')}
        {/* drawn, not a ▾ character: the page's fonts lack that glyph, and looking up a fallback font for it
            cost the search page a 15–25 ms layout while it loaded (Chromium on Linux) */}
        <svg viewBox="0 0 20 20" className={`size-4 shrink-0 ${open ? 'rotate-180' : ''}`} fill="currentColor" aria-hidden="true">
          <path d="M5.3 7.3a1 1 0 0 1 1.4 0L10 10.6l3.3-3.3a1 1 0 1 1 1.4 1.4l-4 4a1 1 0 0 1-1.4 0l-4-4a1 1 0 0 1 0-1.4z" />
        </svg>
      </Button>
      <div id={panel} hidden={!open} className="mt-3">
        {open && (
          <Suspense fallback={null}>
            <FileOptionsPanel ext={ext} format={format} />
          </Suspense>
        )}
      </div>
    </div>
  )
}

/**
 * Purchased credits about to expire. One click caps this export to spend exactly them (charged only after
 * the confirmation), offered only when the service says it spends the credits that expire first
 * (extension credit_order) and lists its balances in that order: the cap then counts whatever it spends
 * before them. Without that promise only the fact is stated: the export might be paid from the
 * subscription and leave them to expire.
 */
function ExpiringCredits({
  expiring,
  lots,
  cap,
  onCap,
}: {
  expiring: number
  lots: readonly CreditLot[] | undefined
  cap: number | null
  onCap: (cap: number) => void
}) {
  const { t, i18n } = useTranslation('search')
  const formatted = formatNumber(i18n.language, expiring)
  const spendsExpiringFirst = useCapability('credit_order')
  const capTo = spendsExpiringFirst && lots ? capToSpendExpiring(lots, expiring) : null
  return (
    <div
      className="space-y-2 rounded-md bg-amber-50 p-3 text-sm text-amber-900 dark:bg-amber-950/40 dark:text-amber-100"
      data-testid="expiring-hint"
    >
      <p>{t('exportFile.expiringHint', { formatted })}</p>
      {capTo !== null && cap !== capTo && (
        <Button variant="secondary" onClick={() => onCap(capTo)}>
          {t('exportFile.expiringCap', { formatted: formatNumber(i18n.language, capTo) })}
        </Button>
      )}
    </div>
  )
}

function OwnedLeads({ filters, ready }: { filters: SearchFilters; ready: boolean }) {
  const { t, i18n } = useTranslation('search')
  const n = (v: number) => formatNumber(i18n.language, v)
  const owned = useQuery({ ...ownedOptions(previewQuery(filters)), enabled: ready })
  const { skipOwned, setSkipOwned } = useFileOptions()
  const count = owned.data?.owned_count ?? 0
  // nothing to say until the account has some of these leads
  if (count === 0) return null
  return (
    <div className="space-y-1 text-sm" data-testid="owned-leads" data-owned={count}>
      <p>{t('exportFile.ownedLine', { formatted: n(count), total: n(owned.data?.totalCount ?? 0) })}</p>
      <label className="flex min-h-10 items-center gap-2">
        <input type="checkbox" className="size-4 accent-brand-600" checked={skipOwned} onChange={(e) => setSkipOwned(e.target.checked)} />
        <span>
          {t('exportFile.skipOwned')}{' '}
          <span className="text-slate-600 dark:text-slate-400">({t('exportFile.skipOwnedSaves', { formatted: n(count) })})</span>
        </span>
      </label>
    </div>
  )
}
