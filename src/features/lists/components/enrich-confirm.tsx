import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useNavigate } from 'react-router'
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
import { paths } from '@/config/paths'
import { useProfile } from '@/api/account/profile'
import { useCapability, useCapabilityInfo } from '@/api/capabilities/get-capabilities'
import { insufficientCredits } from '@/api/exports/start-export'
import { enrichmentQuoteOptions } from '@/api/lists/get-enrichment'
import { changedPrice, useStartEnrichment } from '@/api/lists/start-enrichment'
import { availableCredits, planPayment } from '@/domain/cost'
import { ApiError } from '@/lib/api-client'
import { errorMessage } from '@/lib/error-message'
import { formatNumber, listParts } from '@/lib/format'
import type { EnrichDialogProps } from './enrich-dialog'

/** The quote, the choices (skip what the account has, CSV or Excel) and the start of filling in a list. */
export function EnrichConfirm({ listId, listName, open, onClose }: EnrichDialogProps) {
  const { t, i18n } = useTranslation('lists')
  const { t: te } = useTranslation('exports')
  const { t: tc } = useTranslation('columns')
  const lng = i18n.language
  const n = (v: number) => formatNumber(lng, v)
  const navigate = useNavigate()
  const queryClient = useQueryClient()
  const [skipOwned, setSkipOwned] = useState(true)
  const [format, setFormat] = useState<'csv' | 'excel'>('csv')
  const quote = useQuery(enrichmentQuoteOptions(listId, skipOwned))
  const profile = useProfile()
  const creditOrder = useCapability('credit_order')
  // the file's new headers in the person's language, where the service writes files in it (extension `file_locale`)
  const fileLocale = useCapabilityInfo('file_locale')
  const locales = fileLocale && Array.isArray(fileLocale.languages) ? (fileLocale.languages as unknown[]) : []
  const start = useStartEnrichment()
  // the price the service answered with when it refused the one shown: the person accepts it, or not
  const [newPrice, setNewPrice] = useState<number | null>(null)

  const cost = newPrice ?? quote.data?.credits_required
  const balance = profile.data
    ? { subscription: profile.data.remaining_credits, purchased: profile.data.purchased_credits_available }
    : null
  const payment = balance && cost !== undefined ? planPayment(cost, balance, creditOrder ? profile.data?.credit_lots : null) : null
  const refused = insufficientCredits(start.error)
  const notMatchedYet = quote.error instanceof ApiError && quote.error.status === 409
  const nothing = quote.data?.companies === 0

  // one start at a time; a lost answer is checked against the balance (useChargingStart)
  const charging = useChargingStart()

  const close = () => {
    if (start.isPending) return
    charging.reset()
    start.reset()
    onClose()
  }

  const submit = () => {
    if (cost === undefined || !charging.begin()) return
    const before = totalBalance(profile.data)
    start.mutate(
      {
        listId,
        skip_owned: skipOwned,
        export_format: format,
        file_locale: locales.includes(i18n.resolvedLanguage) ? i18n.resolvedLanguage : undefined,
        expected_credits: cost,
      },
      {
        onSuccess: (started) => navigate(paths.exportJob(started.search_id)),
        onError: (error) => {
          const price = changedPrice(error)
          if (price !== null) {
            setNewPrice(price)
            void queryClient.invalidateQueries({ queryKey: enrichmentQuoteOptions(listId, skipOwned).queryKey })
          }
          charging.failed(error, before)
        },
      },
    )
  }

  const tryAgain = () => {
    charging.reset()
    start.reset()
    submit()
  }

  const chooseSkipOwned = (on: boolean) => {
    setSkipOwned(on)
    setNewPrice(null)
    start.reset()
  }

  // the file's own headers as written; a mapped field by the mapping's name; a new column by an export's column name
  const names = (items: readonly string[], kind: 'header' | 'field' | 'column') =>
    items.length
      ? listParts(
          lng,
          items.map((x) =>
            kind === 'header'
              ? x
              : kind === 'field'
                ? t(`mapping.fields.${x}` as never, { defaultValue: x })
                : tc(x as never, { defaultValue: x }),
          ),
        )
          .map((p) => p.value)
          .join('')
      : t('enrich.none')

  const priceChanged = newPrice !== null
  return (
    <Dialog
      open={open}
      onClose={close}
      size="lg"
      title={t('enrich.title', { name: `\u2068${listName}\u2069` })}
      description={t('enrich.intro')}
      actions={
        <>
          <Button variant="secondary" onClick={close}>
            {te('cancel')}
          </Button>
          <Button
            data-testid="confirm-enrich"
            onClick={submit}
            loading={start.isPending || start.isSuccess}
            disabled={!payment || !payment.enough || nothing || charging.lost !== null}
          >
            {priceChanged ? t('enrich.startNewPrice') : t('enrich.start')}
          </Button>
        </>
      }
    >
      {notMatchedYet ? (
        <Alert tone="info">{t('enrich.notMatched')}</Alert>
      ) : quote.isError ? (
        <Alert tone="error" title={t('enrich.loadError')}>
          {errorMessage(quote.error)}
        </Alert>
      ) : !quote.data || !payment ? (
        <p className="flex items-center gap-2 text-sm">
          <Spinner className="size-4" />
          {t('enrich.loading')}
        </p>
      ) : (
        <div className="space-y-4 text-sm">
          {nothing && <Alert tone="info">{t('enrich.nothing')}</Alert>}
          <dl className="space-y-2">
            <Fact label={t('enrich.matchedRows')} value={n(quote.data.matched_rows)} valueClassName="tabular-nums" testId="enrich-rows" />
            <Fact label={t('enrich.companies')} value={n(quote.data.companies)} valueClassName="tabular-nums" testId="enrich-companies" />
            <Fact label={t('enrich.owned')} value={n(quote.data.owned)} valueClassName="tabular-nums" testId="enrich-owned" />
          </dl>
          {quote.data.owned > 0 && (
            <label className="flex min-h-10 items-center gap-2">
              <input
                type="checkbox"
                className="size-4 accent-brand-600"
                checked={skipOwned}
                onChange={(e) => chooseSkipOwned(e.target.checked)}
              />
              <span>{t('enrich.skipOwned')}</span>
            </label>
          )}
          <dl className="space-y-2">
            <Fact label={t('enrich.keeps')} value={null} note={<bdi>{names(quote.data.keeps, 'header')}</bdi>} testId="enrich-keeps" />
            <Fact label={t('enrich.fillsEmpty')} value={null} note={names(quote.data.fills_empty, 'field')} testId="enrich-fills-empty" />
            <Fact label={t('enrich.fills')} value={null} note={names(quote.data.fills, 'column')} testId="enrich-fills" />
          </dl>
          <fieldset>
            <legend className="mb-1 font-medium">{te('formatLabel')}</legend>
            <div className="flex flex-wrap gap-x-6">
              {(['csv', 'excel'] as const).map((f) => (
                <label key={f} className="flex min-h-10 items-center gap-2">
                  <input
                    type="radio"
                    name={`enrich-format-${listId}`}
                    className="size-4 accent-brand-600"
                    checked={format === f}
                    onChange={() => setFormat(f)}
                  />
                  <bdi>{f === 'excel' ? 'Excel (XLSX)' : 'CSV'}</bdi>
                </label>
              ))}
            </div>
          </fieldset>
          {priceChanged && (
            <Alert tone="warning" title={te('cost')}>
              {t('enrich.priceChanged', { price: te('credits', { count: newPrice, formatted: n(newPrice) }) })}
            </Alert>
          )}
          <dl className="space-y-2">
            <Fact
              label={
                <>
                  {te('cost')}
                  <span className="block text-xs text-slate-600 dark:text-slate-400">{t('enrich.costExplained')}</span>
                </>
              }
              value={te('credits', { count: payment.cost, formatted: n(payment.cost) })}
              valueClassName="font-semibold tabular-nums"
              testId="enrich-cost"
            />
            {balance && (
              <Fact
                label={t('enrich.balance')}
                value={te('credits', { count: availableCredits(balance), formatted: n(availableCredits(balance)) })}
                valueClassName="tabular-nums"
                testId="enrich-balance"
              />
            )}
            <PaymentFacts payment={payment} n={n} />
          </dl>
          {!payment.enough && (
            <NotEnoughCredits payment={payment} n={n}>
              {!skipOwned && quote.data.owned > 0 && (
                <Button variant="secondary" onClick={() => chooseSkipOwned(true)}>
                  {t('enrich.skipOwned')}
                </Button>
              )}
            </NotEnoughCredits>
          )}
          {refused && <CreditsRefused refused={refused} n={n} />}
          {charging.lost && (
            <LostAnswerNotice
              verdict={charging.lost}
              onTryAgain={tryAgain}
              lookIn={{ to: paths.list(listId), label: t('enrich.openList') }}
            />
          )}
          {start.isError && !refused && !charging.lost && !priceChanged && (
            <Alert tone="error" title={t('enrich.startError')}>
              {errorMessage(start.error)}
            </Alert>
          )}
        </div>
      )}
    </Dialog>
  )
}
