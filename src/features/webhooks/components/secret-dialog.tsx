import { useId, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { withIsolated } from '@/components/isolated'
import { Button } from '@/components/ui/button'
import { CopyButton } from '@/components/ui/copy-button'
import { Dialog } from '@/components/ui/dialog'
import type { WebhookWithSecret } from '@/api/webhooks/create-webhook'

/**
 * The signing secret, shown once (after adding an endpoint or rotating its secret): the dialog cannot
 * be closed until the person confirms they have it.
 */
export function SecretDialog({ shown, rotated, onClose }: { shown: WebhookWithSecret; rotated: boolean; onClose: () => void }) {
  const { t } = useTranslation('webhooks')
  const [ack, setAck] = useState(false)
  const secretId = useId()
  const ackId = useId()
  return (
    <Dialog
      open
      onClose={ack ? onClose : () => {}}
      title={rotated ? t('secret.rotatedTitle') : t('secret.createdTitle')}
      description={t('secret.warning')}
      size="lg"
      actions={
        <Button onClick={onClose} disabled={!ack}>
          {t('secret.done')}
        </Button>
      }
    >
      <div className="space-y-4">
        <p className="text-sm [&_bdi]:break-all">{withIsolated((url) => t('secret.for', { url }), shown.webhook.url)}</p>
        {rotated && <p className="text-sm font-medium">{t('secret.rotatedWarning')}</p>}
        <div>
          <label htmlFor={secretId} className="mb-1 block text-sm font-medium">
            {t('secret.label')}
          </label>
          <input
            id={secretId}
            readOnly
            value={shown.secret}
            dir="ltr"
            spellCheck={false}
            onFocus={(e) => e.currentTarget.select()}
            className="block w-full rounded-md border border-slate-300 bg-slate-50 px-3 py-2 font-mono text-sm dark:border-slate-600 dark:bg-slate-950"
          />
          <div className="mt-2">
            <CopyButton text={shown.secret} label={t('secret.copy')} copiedText={t('secret.copied')} failedText={t('secret.copyFailed')} />
          </div>
        </div>
        <div className="flex items-start gap-2 rounded-md border border-amber-300 bg-amber-50 p-3 dark:border-amber-700 dark:bg-amber-950">
          <input id={ackId} type="checkbox" checked={ack} onChange={(e) => setAck(e.target.checked)} className="mt-0.5 size-4 shrink-0" />
          <label htmlFor={ackId} className="text-sm">
            {t('secret.ack')}
          </label>
        </div>
      </div>
    </Dialog>
  )
}
