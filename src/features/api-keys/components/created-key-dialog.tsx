import { useId, useState, type ComponentProps } from 'react'
import { useTranslation } from 'react-i18next'
import { Button } from '@/components/ui/button'
import { CopyButton as UiCopyButton } from '@/components/ui/copy-button'
import { Dialog } from '@/components/ui/dialog'
import { env } from '@/config/env'
import { formatDateTime } from '@/lib/format'
import type { CreatedApiKey } from '@/api/api-keys/create-api-key'

export function curlExample(token: string, origin: string = env.VITE_API_BASE_URL || window.location.origin) {
  return `curl -H "Authorization: Token ${token}" "${origin}/api/companies/?countries=DE"`
}

function CopyButton(props: Omit<ComponentProps<typeof UiCopyButton>, 'copiedText' | 'failedText'>) {
  const { t } = useTranslation('apikeys')
  return <UiCopyButton {...props} copiedText={t('created.copied')} failedText={t('created.copyFailed')} />
}

/** The full key, shown once: the dialog cannot be closed until the person confirms they have it. */
export function CreatedKeyDialog({ created, onClose }: { created: CreatedApiKey; onClose: () => void }) {
  const { t, i18n } = useTranslation('apikeys')
  const [ack, setAck] = useState(false)
  const keyId = useId()
  const curlId = useId()
  const ackId = useId()
  const curl = curlExample(created.token)

  return (
    <Dialog
      open
      onClose={ack ? onClose : () => {}}
      title={t('created.title')}
      description={t('created.warning')}
      size="lg"
      actions={
        <Button onClick={onClose} disabled={!ack}>
          {t('created.done')}
        </Button>
      }
    >
      <div className="space-y-4">
        {created.api_key.name && (
          <p className="text-sm">
            {t('created.name')} <bdi className="font-medium">{created.api_key.name}</bdi>
          </p>
        )}
        <div>
          <label htmlFor={keyId} className="mb-1 block text-sm font-medium">
            {t('created.keyLabel')}
          </label>
          <input
            id={keyId}
            readOnly
            value={created.token}
            dir="ltr"
            onFocus={(e) => e.currentTarget.select()}
            className="block w-full rounded-md border border-slate-300 bg-slate-50 px-3 py-2 font-mono text-sm dark:border-slate-600 dark:bg-slate-950"
          />
          <div className="mt-2">
            <CopyButton text={created.token} label={t('created.copy')} />
          </div>
          <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">
            {created.api_key.expiry
              ? t('created.expires', { date: formatDateTime(i18n.language, created.api_key.expiry) })
              : t('created.noExpiry')}
          </p>
        </div>
        <div>
          <p id={curlId} className="mb-1 text-sm font-medium">
            {t('created.curlLabel')}
          </p>
          <pre
            aria-labelledby={curlId}
            dir="ltr"
            // eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex -- scrollable region must be reachable by keyboard
            tabIndex={0}
            className="overflow-x-auto rounded-md bg-slate-900 p-3 text-start font-mono text-xs text-slate-100"
          >
            <code>{curl}</code>
          </pre>
          <div className="mt-2">
            <CopyButton text={curl} label={t('created.copyCurl')} />
          </div>
        </div>
        <div className="flex items-start gap-2 rounded-md border border-amber-300 bg-amber-50 p-3 dark:border-amber-700 dark:bg-amber-950">
          <input id={ackId} type="checkbox" checked={ack} onChange={(e) => setAck(e.target.checked)} className="mt-0.5 size-4" />
          <label htmlFor={ackId} className="text-sm">
            {t('created.ack')}
          </label>
        </div>
      </div>
    </Dialog>
  )
}
