import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useCancelMatching } from '@/api/lists/cancel-matching'
import type { List } from '@/api/lists/get-lists'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card } from '@/components/ui/card'
import { Dialog } from '@/components/ui/dialog'
import { errorMessage } from '@/lib/error-message'
import { formatNumber, formatPercent } from '@/lib/format'
import { progressOf } from './list-status'

/** The job's progress (the list is polled while it runs: listOptions), and a way to stop it. */
export function MatchProgress({ list }: { list: List }) {
  const { t, i18n } = useTranslation('lists')
  const lng = i18n.language
  const cancel = useCancelMatching(list.id)
  const [asking, setAsking] = useState(false)
  const share = progressOf(list)
  return (
    <Card title={t('progress.title')}>
      <div className="space-y-3">
        {list.status === 'queued' && <p className="text-sm">{t('progress.queued')}</p>}
        <div className="flex flex-wrap items-center justify-between gap-2 text-sm">
          <label htmlFor="list-match-progress">
            {t('progress.body', { done: formatNumber(lng, list.matched_rows), total: formatNumber(lng, list.total_rows) })}
          </label>
          <span className="tabular-nums">{formatPercent(lng, share)}</span>
        </div>
        <progress id="list-match-progress" max={1} value={share} className="block h-2 w-full accent-brand-600" />
        <Button variant="secondary" onClick={() => setAsking(true)}>
          {t('progress.cancel')}
        </Button>
      </div>
      {asking && (
        <Dialog
          open
          onClose={cancel.isPending ? () => {} : () => setAsking(false)}
          title={t('progress.cancelTitle')}
          description={t('progress.cancelBody')}
          actions={
            <>
              <Button variant="secondary" onClick={() => setAsking(false)} disabled={cancel.isPending}>
                {t('progress.keep')}
              </Button>
              <Button
                variant="danger"
                loading={cancel.isPending}
                onClick={() => cancel.mutate(undefined, { onSuccess: () => setAsking(false) })}
              >
                {t('progress.cancelConfirm')}
              </Button>
            </>
          }
        >
          {cancel.isError && <Alert tone="error">{t('progress.cancelFailed', { detail: errorMessage(cancel.error) })}</Alert>}
        </Dialog>
      )}
    </Card>
  )
}
