import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card } from '@/components/ui/card'
import { Dialog } from '@/components/ui/dialog'
import { ApiError } from '@/lib/api-client'
import { useCapabilityInfo } from '@/api/capabilities/get-capabilities'
import { formatDate, formatDateTime, formatNumber } from '@/lib/format'
import type { CreatedApiKey } from '@/api/api-keys/create-api-key'
import { apiKeysOptions, isExpired, type ApiKey } from '@/api/api-keys/get-api-keys'
import { useRevokeApiKey } from '@/api/api-keys/revoke-api-key'
import { CreateKeyForm } from './create-key-form'
import { CreatedKeyDialog } from './created-key-dialog'
import { keyText } from './key-text'

export function ApiKeysPage() {
  const { t, i18n } = useTranslation('apikeys')
  const keys = useQuery(apiKeysOptions())
  const [created, setCreated] = useState<CreatedApiKey | null>(null)
  const [revoking, setRevoking] = useState<ApiKey | null>(null)
  const [revoked, setRevoked] = useState<ApiKey | null>(null)
  // a service with the api_key_limit extension says how many active keys an account may hold
  const limitInfo = useCapabilityInfo('api_key_limit')
  const limit = typeof limitInfo?.limit === 'number' ? limitInfo.limit : null
  const [listedAt] = useState(() => Date.now())
  const active = keys.data?.filter((k) => !isExpired(k, listedAt)).length ?? 0
  const atLimit = limit !== null && active >= limit
  const n = (v: number) => formatNumber(i18n.language, v)

  return (
    <main className="mx-auto w-full min-w-0 max-w-5xl space-y-6">
      <div>
        <h1 className="text-2xl font-semibold">{t('title')}</h1>
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{t('intro')}</p>
        <ul className="mt-2 flex flex-wrap gap-2 text-xs">
          {['Authorization: Token <key>', 'Authorization: Bearer <key>'].map((h) => (
            <li key={h}>
              <code dir="ltr" className="rounded bg-slate-200 px-2 py-1 font-mono dark:bg-slate-800">
                {h}
              </code>
            </li>
          ))}
        </ul>
      </div>

      <Card title={t('create.title')}>
        {limit !== null && keys.data && (
          <p className="mb-3 text-sm text-slate-600 dark:text-slate-400" data-testid="key-limit">
            {t('limit', { active: n(active), limit: n(limit) })}
          </p>
        )}
        {atLimit && (
          <Alert tone="warning" className="mb-3">
            {t('limitReached', { limit: n(limit) })}
          </Alert>
        )}
        <CreateKeyForm
          atLimit={atLimit}
          onCreated={(c) => {
            setRevoked(null)
            setCreated(c)
          }}
        />
      </Card>

      <Card title={t('list.label')}>
        {revoked && (
          <Alert tone="success" className="mb-4">
            {keyText((v) => (revoked.name ? t('revoke.doneNamed', v) : t('revoke.done', v)), revoked)}
          </Alert>
        )}
        {keys.isPending && (
          <p role="status" className="text-sm text-slate-600 dark:text-slate-400">
            {t('loading')}
          </p>
        )}
        {keys.isError && (
          <Alert tone="error" title={t('error.title')}>
            <Button variant="secondary" className="mt-2" onClick={() => void keys.refetch()}>
              {t('error.retry')}
            </Button>
          </Alert>
        )}
        {keys.data && keys.data.length === 0 && <p className="text-sm">{t('empty')}</p>}
        {keys.data && keys.data.length > 0 && <KeyTable keys={keys.data} onRevoke={setRevoking} />}
      </Card>

      {created && <CreatedKeyDialog created={created} onClose={() => setCreated(null)} />}
      {revoking && (
        <RevokeDialog
          apiKey={revoking}
          onClose={() => setRevoking(null)}
          onRevoked={() => {
            setRevoked(revoking)
            setRevoking(null)
          }}
        />
      )}
    </main>
  )
}

type ColumnKey = 'prefix' | 'created' | 'expiry' | 'status' | 'scope' | 'spent'

/**
 * The actions column stays at the table's end while the rest scrolls under it (a phone shows Revoke
 * beside each key without scrolling), on the card's own background. On a phone, where it covers the
 * other columns, a rule marks its edge (a pseudo-element: a collapsed table's cell borders do not move
 * with a sticky cell).
 */
const STUCK_TO_END =
  'sticky end-0 bg-white ps-1 dark:bg-slate-900 max-sm:before:absolute max-sm:before:inset-y-0 max-sm:before:start-0 max-sm:before:w-px max-sm:before:bg-slate-200 dark:max-sm:before:bg-slate-700'

function KeyTable({ keys, onRevoke }: { keys: ApiKey[]; onRevoke: (k: ApiKey) => void }) {
  const { t, i18n } = useTranslation('apikeys')
  const lng = i18n.language
  // the moment the list was drawn; a key that expires while the page is open shows so on the next load
  const [now] = useState(() => Date.now())
  // extension scoped_api_keys: each key's rights and what it spent this month (of its cap)
  const scoped = keys.some((k) => k.scope !== undefined)
  const n = (v: number) => formatNumber(lng, v)
  // [string key, hidden on narrow screens]
  const columns: (readonly [ColumnKey, boolean])[] = [
    ['prefix', false],
    ['created', true],
    ['expiry', false],
    ['status', false],
    ...(scoped
      ? ([
          ['scope', false],
          ['spent', false],
        ] as const)
      : []),
  ]
  return (
    // The table scrolls in its own box on a narrow screen, never the page: `relative` also holds the
    // visually hidden labels (absolutely positioned), which would otherwise widen the page from inside it.
    // The box takes focus so that its hidden columns can be scrolled to by keyboard.
    <div
      role="region"
      aria-label={t('list.label')}
      // eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex -- a scrollable region must be reachable by keyboard
      tabIndex={0}
      className="relative overflow-x-auto focus-visible:outline-2 focus-visible:outline-sky-600"
    >
      {/* one line per value, so that a narrow screen scrolls the box rather than breaking dates and
          amounts letter by letter; only the key's name wraps */}
      <table className="w-full whitespace-nowrap text-start text-sm">
        <caption className="sr-only">{t('list.label')}</caption>
        <thead>
          <tr className="border-b border-slate-200 dark:border-slate-700">
            {columns.map(([key, hidden]) => (
              <th key={key} scope="col" className={`py-2 pe-3 text-start font-medium ${hidden ? 'hidden sm:table-cell' : ''}`}>
                {t(`list.${key}`)}
              </th>
            ))}
            <th scope="col" className={`py-2 text-end font-medium ${STUCK_TO_END}`}>
              <span className="sr-only">{t('list.actions')}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => {
            const expired = isExpired(k, now)
            return (
              <tr key={k.id} className="border-b border-slate-100 last:border-0 dark:border-slate-800">
                <td className="min-w-36 max-w-64 whitespace-normal break-words py-2 pe-3">
                  {k.name ? (
                    <>
                      {/* each block keeps the page's alignment; the <bdi> inside gives its text its own direction */}
                      <span className="block font-medium">
                        <bdi>{k.name}</bdi>
                      </span>
                      <span className="block whitespace-nowrap font-mono text-xs text-slate-600 dark:text-slate-400">
                        <bdi dir="ltr">{k.token_key}…</bdi>
                      </span>
                    </>
                  ) : (
                    <bdi dir="ltr" className="whitespace-nowrap font-mono">
                      {k.token_key}…
                    </bdi>
                  )}
                </td>
                <td className="hidden py-2 pe-3 sm:table-cell">{formatDateTime(lng, k.created)}</td>
                <td className="py-2 pe-3">{k.expiry ? formatDate(lng, k.expiry) : t('list.never')}</td>
                <td className="py-2 pe-3">
                  <span
                    className={`rounded-full px-2 py-0.5 text-xs font-medium ${
                      expired
                        ? 'bg-slate-200 text-slate-800 dark:bg-slate-800 dark:text-slate-200'
                        : 'bg-emerald-100 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-100'
                    }`}
                  >
                    {expired ? t('list.expired') : t('list.active')}
                  </span>
                </td>
                {scoped && (
                  <>
                    <td className="py-2 pe-3">{k.scope === 'read' ? t('list.read') : t('list.export')}</td>
                    <td className="py-2 pe-3" data-testid="key-spent">
                      {k.scope === 'read'
                        ? '–'
                        : k.monthly_credit_cap
                          ? t('list.spentOf', { spent: n(k.credits_spent_this_period ?? 0), cap: n(k.monthly_credit_cap) })
                          : t('list.spentNoCap', { spent: n(k.credits_spent_this_period ?? 0) })}
                    </td>
                  </>
                )}
                <td className={`py-2 text-end ${STUCK_TO_END}`}>
                  <Button
                    variant="ghost"
                    className="whitespace-nowrap px-2 text-red-700 dark:text-red-400"
                    aria-label={
                      k.name
                        ? t('list.revokeNamedLabel', { name: k.name, prefix: k.token_key })
                        : t('list.revokeLabel', { prefix: k.token_key })
                    }
                    onClick={() => onRevoke(k)}
                  >
                    {t('list.revoke')}
                  </Button>
                </td>
              </tr>
            )
          })}
        </tbody>
      </table>
    </div>
  )
}

function RevokeDialog({ apiKey, onClose, onRevoked }: { apiKey: ApiKey; onClose: () => void; onRevoked: () => void }) {
  const { t } = useTranslation('apikeys')
  const revoke = useRevokeApiKey()
  return (
    <Dialog
      open
      onClose={revoke.isPending ? () => {} : onClose}
      title={keyText((v) => (apiKey.name ? t('revoke.titleNamed', v) : t('revoke.title', v)), apiKey)}
      description={keyText((v) => (apiKey.name ? t('revoke.bodyNamed', v) : t('revoke.body', v)), apiKey)}
      actions={
        <>
          <Button variant="secondary" onClick={onClose} disabled={revoke.isPending}>
            {t('revoke.cancel')}
          </Button>
          <Button variant="danger" loading={revoke.isPending} onClick={() => revoke.mutate(apiKey.id, { onSuccess: onRevoked })}>
            {t('revoke.confirm')}
          </Button>
        </>
      }
    >
      {revoke.isError && (
        <Alert tone="error">
          {t('revoke.error', { detail: revoke.error instanceof ApiError ? revoke.error.detail : String(revoke.error) })}
        </Alert>
      )}
    </Dialog>
  )
}
