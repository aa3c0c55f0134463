import { useTranslation } from 'react-i18next'
import { withIsolated } from '@/components/isolated'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Dialog } from '@/components/ui/dialog'
import { errorMessage } from '@/lib/error-message'
import type { WebhookWithSecret } from '@/api/webhooks/create-webhook'
import { useDeleteWebhook } from '@/api/webhooks/delete-webhook'
import type { Webhook } from '@/api/webhooks/get-webhooks'
import { useRotateWebhookSecret } from '@/api/webhooks/rotate-webhook-secret'

/** The old secret stops working the moment the new one is made: said before, not after. */
export function RotateDialog({
  webhook,
  onClose,
  onRotated,
}: {
  webhook: Webhook
  onClose: () => void
  onRotated: (shown: WebhookWithSecret) => void
}) {
  const { t } = useTranslation('webhooks')
  const rotate = useRotateWebhookSecret()
  return (
    <Dialog
      open
      onClose={rotate.isPending ? () => {} : onClose}
      title={t('rotate.title')}
      description={<span className="[&_bdi]:break-all">{withIsolated((url) => t('rotate.body', { url }), webhook.url)}</span>}
      actions={
        <>
          <Button variant="secondary" onClick={onClose} disabled={rotate.isPending}>
            {t('rotate.cancel')}
          </Button>
          <Button variant="danger" loading={rotate.isPending} onClick={() => rotate.mutate(webhook.id, { onSuccess: onRotated })}>
            {t('rotate.confirm')}
          </Button>
        </>
      }
    >
      {rotate.isError && <Alert tone="error">{t('rotate.error', { detail: errorMessage(rotate.error) })}</Alert>}
    </Dialog>
  )
}

export function RemoveDialog({ webhook, onClose, onRemoved }: { webhook: Webhook; onClose: () => void; onRemoved: () => void }) {
  const { t } = useTranslation('webhooks')
  const remove = useDeleteWebhook()
  return (
    <Dialog
      open
      onClose={remove.isPending ? () => {} : onClose}
      title={t('remove.title')}
      description={<span className="[&_bdi]:break-all">{withIsolated((url) => t('remove.body', { url }), webhook.url)}</span>}
      actions={
        <>
          <Button variant="secondary" onClick={onClose} disabled={remove.isPending}>
            {t('remove.cancel')}
          </Button>
          <Button variant="danger" loading={remove.isPending} onClick={() => remove.mutate(webhook.id, { onSuccess: onRemoved })}>
            {t('remove.confirm')}
          </Button>
        </>
      }
    >
      {remove.isError && <Alert tone="error">{t('remove.error', { detail: errorMessage(remove.error) })}</Alert>}
    </Dialog>
  )
}
