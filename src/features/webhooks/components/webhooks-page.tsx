import { useQuery } from '@tanstack/react-query'
import { useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { withIsolated } from '@/components/isolated'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card } from '@/components/ui/card'
import { formatNumber } from '@/lib/format'
import { useDocumentTitle } from '@/lib/use-document-title'
import { useWebhooksCapability, type WebhooksCapability } from '../capability'
import type { WebhookWithSecret } from '@/api/webhooks/create-webhook'
import { webhooksOptions, type Webhook } from '@/api/webhooks/get-webhooks'
import { RemoveDialog, RotateDialog } from './confirm-dialogs'
import { CreateWebhookForm } from './create-webhook-form'
import { EndpointCard } from './endpoint-card'
import { SecretDialog } from './secret-dialog'
import { VerifySample } from './verify-sample'

/** Extension `webhooks`: a service without it gets a plain sentence, and no request is made. */
export function WebhooksPage() {
  const { t } = useTranslation('webhooks')
  useDocumentTitle(t('title'))
  const capability = useWebhooksCapability()
  return (
    <main className="mx-auto w-full min-w-0 max-w-5xl space-y-6">
      <div>
        <h1 className="text-2xl font-semibold">{t('title')}</h1>
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{t('intro')}</p>
      </div>
      {capability === undefined && <ListSkeleton label={t('loading')} />}
      {capability === null && (
        <Alert tone="info" title={t('unavailable.title')}>
          {t('unavailable.body')}
        </Alert>
      )}
      {capability && <Webhooks capability={capability} />}
    </main>
  )
}

type Dialog =
  | { kind: 'secret'; shown: WebhookWithSecret; rotated: boolean }
  | { kind: 'rotate'; webhook: Webhook }
  | { kind: 'remove'; webhook: Webhook }

function Webhooks({ capability }: { capability: WebhooksCapability }) {
  const { t, i18n } = useTranslation('webhooks')
  const list = useQuery(webhooksOptions())
  const [dialog, setDialog] = useState<Dialog | null>(null)
  const [removedUrl, setRemovedUrl] = useState<string | null>(null)
  // the dialogs unmount as they close, so the element to return to is kept here: the button that
  // opened them (the form's submit button for a new endpoint), or the list's heading after a removal
  const returnTo = useRef<HTMLElement | null>(null)
  const listHeading = useRef<HTMLHeadingElement>(null)
  const close = () => {
    setDialog(null)
    const target = returnTo.current
    requestAnimationFrame(() => (target?.isConnected ? target : listHeading.current)?.focus())
  }
  const n = (v: number) => formatNumber(i18n.language, v)
  const limit = capability.limit ?? null
  const used = list.data?.length ?? 0
  const atLimit = limit !== null && used >= limit

  return (
    <>
      <Card title={t('create.title')}>
        {limit !== null && list.data && (
          <p className="mb-3 text-sm text-slate-600 dark:text-slate-400" data-testid="webhook-limit">
            {t('create.limit', { used: n(used), limit: n(limit) })}
          </p>
        )}
        {atLimit && (
          <Alert tone="warning" className="mb-3">
            {t('create.limitReached', { limit: n(limit) })}
          </Alert>
        )}
        <CreateWebhookForm
          capability={capability}
          atLimit={atLimit}
          onCreated={(shown) => {
            setRemovedUrl(null)
            returnTo.current = document.activeElement instanceof HTMLElement ? document.activeElement : null
            setDialog({ kind: 'secret', shown, rotated: false })
          }}
        />
      </Card>

      <section aria-labelledby="webhooks-list-title" className="space-y-4">
        <h2 id="webhooks-list-title" ref={listHeading} tabIndex={-1} className="text-lg font-semibold focus:outline-none">
          {t('list.label')}
        </h2>
        {removedUrl && <Alert tone="success">{withIsolated((url) => t('list.removed', { url }), removedUrl)}</Alert>}
        {list.isPending && <ListSkeleton label={t('loading')} />}
        {list.isError && !list.data && (
          <Alert tone="error" title={t('error.title')}>
            <Button variant="secondary" className="mt-2" onClick={() => void list.refetch()}>
              {t('error.retry')}
            </Button>
          </Alert>
        )}
        {list.data?.length === 0 && (
          <div className="rounded-lg border border-dashed border-slate-300 p-8 text-center dark:border-slate-700">
            <p className="font-semibold">{t('empty.title')}</p>
            <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">{t('empty.body')}</p>
          </div>
        )}
        {list.data && list.data.length > 0 && (
          <ul className="space-y-4">
            {list.data.map((w) => (
              <li key={w.id}>
                <EndpointCard
                  webhook={w}
                  onRotate={(webhook, opener) => {
                    returnTo.current = opener
                    setDialog({ kind: 'rotate', webhook })
                  }}
                  onRemove={(webhook, opener) => {
                    returnTo.current = opener
                    setDialog({ kind: 'remove', webhook })
                  }}
                />
              </li>
            ))}
          </ul>
        )}
      </section>

      <Card title={t('sample.title')}>
        <VerifySample signatureHeader={capability.signature_header} />
      </Card>

      {dialog?.kind === 'secret' && <SecretDialog shown={dialog.shown} rotated={dialog.rotated} onClose={close} />}
      {dialog?.kind === 'rotate' && (
        <RotateDialog webhook={dialog.webhook} onClose={close} onRotated={(shown) => setDialog({ kind: 'secret', shown, rotated: true })} />
      )}
      {dialog?.kind === 'remove' && (
        <RemoveDialog
          webhook={dialog.webhook}
          onClose={close}
          onRemoved={() => {
            setRemovedUrl(dialog.webhook.url)
            returnTo.current = null
            close()
          }}
        />
      )}
    </>
  )
}

function ListSkeleton({ label }: { label: string }) {
  return (
    <div role="status" aria-label={label} className="space-y-4">
      {[0, 1].map((i) => (
        <div key={i} className="h-40 animate-pulse rounded-lg bg-slate-200 motion-reduce:animate-none dark:bg-slate-800" />
      ))}
    </div>
  )
}
