import { useEffect } from 'react'
import { useTranslation } from 'react-i18next'
import { useNavigate } from 'react-router'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Dialog } from '@/components/ui/dialog'
import { Spinner } from '@/components/ui/spinner'
import { paths } from '@/config/paths'
import { ApiError } from '@/lib/api-client'
import { useProfile } from '@/api/account/profile'
import { formatNumber } from '@/lib/format'
import { findLocalExport, recordLocalExport } from '@/lib/local-exports'
import { deltaStarted } from '@/api/history/delta-request'
import { useDownloadDelta } from '@/api/history/download-delta'
import { DeltaVerdict } from './delta-verdict'

const detailOf = (e: unknown) => (e instanceof ApiError ? e.detail : e instanceof Error ? e.message : String(e))

/**
 * "Fresh data only": asks download-delta with dry_run first (free) and shows the verdict; only the
 * confirm button sends `{}`, which starts the export and charges.
 */
export function DeltaDialog({ searchId, onClose }: { searchId: string; onClose: () => void }) {
  const { t, i18n } = useTranslation('history')
  const navigate = useNavigate()
  const check = useDownloadDelta()
  const start = useDownloadDelta()
  const { mutate: runCheck } = check
  const account = useProfile().data?.id

  useEffect(() => {
    runCheck({ searchId, dryRun: true })
  }, [runCheck, searchId])

  // a rejection on start (e.g. credits spent meanwhile) replaces the earlier verdict
  const shown = start.data && !deltaStarted(start.data) ? start.data : check.data
  const canConfirm = shown && !deltaStarted(shown) && shown.validation_code === 'ok' && shown.lead_count > 0

  const confirm = () =>
    start.mutate(
      { searchId, dryRun: false },
      {
        onSuccess: (r) => {
          if (!deltaStarted(r)) return
          // an export this browser recorded (History from this browser): its fresh data joins the record
          const original = account === undefined ? undefined : findLocalExport(String(account), searchId)
          if (original && account !== undefined) {
            recordLocalExport(String(account), {
              ...original,
              search_id: r.search_id,
              max_leads: null,
              created_at: new Date().toISOString(),
              lead_count: r.lead_count,
              credits_charged: r.required_credits,
              delta_of: searchId,
            })
          }
          navigate(paths.exportJob(r.search_id))
        },
      },
    )

  return (
    <Dialog
      open
      onClose={start.isPending ? () => {} : onClose}
      title={t('delta.title', { id: searchId })}
      size="lg"
      actions={
        <>
          <Button variant="secondary" onClick={onClose} disabled={start.isPending}>
            {canConfirm ? t('delta.cancel') : t('delta.close')}
          </Button>
          {canConfirm && (
            <Button onClick={confirm} loading={start.isPending}>
              {start.isPending
                ? t('delta.starting')
                : t('delta.confirm', {
                    count: shown.lead_count,
                    n: formatNumber(i18n.language, shown.lead_count),
                    credits: formatNumber(i18n.language, shown.required_credits),
                  })}
            </Button>
          )}
        </>
      }
    >
      {check.isPending && (
        <p role="status" className="flex items-center gap-2 text-sm">
          <Spinner className="size-4" />
          {t('delta.checking')}
        </p>
      )}
      {check.isError && (
        <Alert tone="error">
          <p>{t('delta.checkError', { detail: detailOf(check.error) })}</p>
          <Button variant="secondary" className="mt-2" onClick={() => runCheck({ searchId, dryRun: true })}>
            {t('delta.checkAgain')}
          </Button>
        </Alert>
      )}
      {shown && <DeltaVerdict result={shown} />}
      {canConfirm && <p className="mt-3 text-sm text-slate-600 dark:text-slate-400">{t('delta.notChargedYet')}</p>}
      {start.isError && (
        <Alert tone="error" className="mt-3">
          {t('delta.startError', { detail: detailOf(start.error) })}
        </Alert>
      )}
    </Dialog>
  )
}
