import { useQuery } from '@tanstack/react-query'
import { lazy, Suspense } from 'react'
import { useTranslation } from 'react-i18next'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Dialog } from '@/components/ui/dialog'
import { Spinner } from '@/components/ui/spinner'
import {
  CreditsRefused,
  Fact,
  LostAnswerNotice,
  NotEnoughCredits,
  PaymentFacts,
  totalBalance,
  useChargingStart,
} from '@/components/export-payment'
import { useProfile } from '@/api/account/profile'
import { ApiError } from '@/lib/api-client'
import { useCapability } from '@/api/capabilities/get-capabilities'
import { errorMessage } from '@/lib/error-message'
import { recordLocalExport } from '@/lib/local-exports'
import { previewQuery, type SearchFilters } from '@/domain/search-filters'
import { formatNumber } from '@/lib/format'
import { loadPageNamespaces } from '@/lib/i18n'
import { ownedOptions } from '@/api/exports/owned'
import { insufficientCredits, useStartExport, type StartedExport } from '@/api/exports/start-export'
import { exportCost, planPayment } from '@/domain/cost'
import {
  chosenColumns,
  extensionFields,
  fileLanguageName,
  spreadsheetConventions,
  useExportExtensions,
  useFileOptions,
} from '../file-options'

// the chosen columns are named in the person's language: the names load with the confirmation's first look at them
const ColumnNames = lazy(() =>
  Promise.all([import('./column-names'), loadPageNamespaces(['columns'])]).then(([m]) => ({ default: m.ColumnNames })),
)

export interface ExportConfirmDialogProps {
  open: boolean
  onClose: () => void
  searchId: string
  /** The search being exported: what the account already has of it is asked with these (extension). */
  filters: SearchFilters
  totalCount: number
  cap: number | null
  format: 'csv' | 'excel'
  /** "Lower the cap" way out: the search page sets the cap to what the balance pays for. */
  onSetCap: (cap: number) => void
  onStarted: (started: StartedExport) => void
}

/** Export with eyes open: the cost, who pays, the balance afterwards and the link's life, before anything is charged. */
export function ExportConfirmDialog({
  open,
  onClose,
  searchId,
  filters,
  totalCount,
  cap,
  format,
  onSetCap,
  onStarted,
}: ExportConfirmDialogProps) {
  const { t, i18n } = useTranslation('exports')
  const { t: ts } = useTranslation('search')
  const n = (v: number) => formatNumber(i18n.language, v)
  const lng = i18n.resolvedLanguage ?? 'en'
  const profile = useProfile()
  const start = useStartExport()
  // extensions (issue 11): leave out what the account has, columns, a file for the person's language
  const ext = useExportExtensions()
  const fileOptions = useFileOptions()
  const skipping = ext?.skipOwned === true && fileOptions.skipOwned
  const owned = useQuery({ ...ownedOptions(previewQuery(filters)), enabled: ext?.skipOwned === true })
  const ownedCount = owned.data?.owned_count ?? 0
  const fullCost = exportCost(totalCount, cap)
  const cost = skipping && owned.data ? exportCost(owned.data.new_count, cap) : fullCost
  const saved = fullCost - cost
  const balance = profile.data
    ? { subscription: profile.data.remaining_credits, purchased: profile.data.purchased_credits_available }
    : null
  // the cost is known once the extensions (and, when skipping, the owned count) are
  const costKnown = ext !== undefined && (!skipping || owned.data !== undefined || owned.isError)
  // who pays: only a service that declares its spending order (extension credit_order) lists its balances
  // in that order; without it the interface leaves the order unsaid, and no split is claimed
  const creditOrder = useCapability('credit_order')
  const payment = balance && costKnown ? planPayment(cost, balance, creditOrder ? profile.data?.credit_lots : null) : null
  const fields = extensionFields(ext, fileOptions, lng)
  const columns = ext?.columns ? chosenColumns(fileOptions.prefs, ext.columns) : null
  const linkDays = profile.data?.subscription_plan?.link_expiration_days
  const refused = insufficientCredits(start.error)
  // a service with sign-up confirmation (extension) refuses exports until the address is confirmed
  const unconfirmed =
    profile.data?.email_confirmed === false || (start.error instanceof ApiError && start.error.code === 'email_not_confirmed')

  // one start at a time; a lost answer is checked against the balance (useChargingStart)
  const charging = useChargingStart()

  const close = () => {
    if (start.isPending) return
    charging.reset()
    start.reset()
    onClose()
  }

  const submit = () => {
    if (!charging.begin()) return
    const before = totalBalance(profile.data)
    start.mutate(
      { search_id: searchId, export_format: format, ...(cap !== null ? { max_leads: cap } : {}), ...fields },
      {
        onSuccess: (started) => {
          // History's list when the service keeps none (lib/local-exports.ts)
          if (profile.data) {
            recordLocalExport(String(profile.data.id), {
              search_id: started.search_id,
              filters: previewQuery(filters),
              export_format: format,
              max_leads: cap,
              created_at: new Date().toISOString(),
              lead_count: started.lead_count ?? cost,
              credits_charged: started.credits_charged ?? cost,
            })
          }
          onStarted(started)
        },
        // a lost answer: the service may have started (and charged) it, the balance says
        onError: (error) => charging.failed(error, before),
      },
    )
  }

  const tryAgain = () => {
    charging.reset()
    start.reset()
    submit()
  }

  return (
    <Dialog
      open={open}
      onClose={close}
      title={t('confirmTitle', { count: cost, formatted: n(cost) })}
      actions={
        <>
          <Button variant="secondary" onClick={close}>
            {t('cancel')}
          </Button>
          <Button
            data-testid="confirm-export"
            onClick={submit}
            loading={start.isPending || start.isSuccess}
            disabled={!payment || !payment.enough || cost === 0 || unconfirmed || charging.lost !== null}
          >
            {t('start')}
          </Button>
        </>
      }
    >
      {!payment ? (
        <p className="flex items-center gap-2 text-sm">
          <Spinner className="size-4" />
          {t('balanceLoading')}
        </p>
      ) : (
        <div className="space-y-4 text-sm">
          {cost === 0 && <Alert tone="info">{skipping && ownedCount > 0 ? t('allOwned') : t('nothingToExport')}</Alert>}
          {ext?.skipOwned && ownedCount > 0 && (
            <label className="flex min-h-10 items-center gap-2">
              <input
                type="checkbox"
                className="size-4 accent-brand-600"
                checked={fileOptions.skipOwned}
                onChange={(e) => fileOptions.setSkipOwned(e.target.checked)}
              />
              <span>
                {ts('exportFile.skipOwned')}{' '}
                <span className="text-slate-600 dark:text-slate-400">
                  ({ts('exportFile.ownedLine', { formatted: n(ownedCount), total: n(totalCount) })})
                </span>
              </span>
            </label>
          )}
          <dl className="space-y-2">
            <Fact
              label={
                <>
                  {t('cost')}
                  <span className="block text-xs text-slate-600 dark:text-slate-400">
                    {t('costExplained')}
                    {cap !== null && cap < totalCount ? ` · ${t('capped', { formatted: n(cap) })}` : ''}
                  </span>
                </>
              }
              value={t('credits', { count: cost, formatted: n(cost) })}
              valueClassName="font-semibold tabular-nums"
              testId="export-cost"
            />
            {skipping && saved > 0 && (
              <Fact label={t('ownedLeftOut')} value={n(saved)} valueClassName="tabular-nums" testId="export-saved" />
            )}
            <Fact
              label={t('formatLabel')}
              value={<bdi>{format === 'excel' ? 'Excel (XLSX)' : 'CSV'}</bdi>}
              note={
                fields.file_locale && (
                  <span data-testid="export-file-kind">
                    {format === 'csv'
                      ? t('fileSpreadsheetHint', { language: fileLanguageName(fields.file_locale), ...spreadsheetConventions(lng) })
                      : t('fileSpreadsheetHintExcel', { language: fileLanguageName(fields.file_locale) })}
                  </span>
                )
              }
            />
            {columns && fields.columns && (
              <Fact
                label={t('columnsLabel')}
                value={t('columnsSome', { chosen: n(columns.length), total: n(ext?.columns?.length ?? columns.length) })}
                testId="export-columns"
                note={
                  <Suspense fallback={null}>
                    <ColumnNames columns={columns} />
                  </Suspense>
                }
              />
            )}
            {fields.email_columns === 'split' && (
              <Fact label={t('emailsLabel')} value={t('emailsOnePerColumn')} testId="export-email-columns" />
            )}
            <PaymentFacts payment={payment} n={n} />
          </dl>
          {linkDays !== undefined && linkDays > 0 && <p>{t('linkDays', { count: linkDays, formatted: n(linkDays) })}</p>}
          {unconfirmed && <Alert tone="warning">{t('notConfirmed')}</Alert>}
          {!payment.enough && !unconfirmed && (
            <NotEnoughCredits payment={payment} n={n}>
              {payment.available > 0 && (
                <Button variant="secondary" onClick={() => onSetCap(payment.available)}>
                  {t('lowerCap', { count: payment.available, formatted: n(payment.available) })}
                </Button>
              )}
              <Button variant="secondary" onClick={close}>
                {t('narrow')}
              </Button>
            </NotEnoughCredits>
          )}
          {refused && <CreditsRefused refused={refused} n={n} />}
          {charging.lost && <LostAnswerNotice verdict={charging.lost} onTryAgain={tryAgain} />}
          {start.isError && !refused && !unconfirmed && !charging.lost && (
            <Alert tone="error" title={t('startError')}>
              {errorMessage(start.error)}
            </Alert>
          )}
        </div>
      )}
    </Dialog>
  )
}
