import { useQueryClient } from '@tanstack/react-query'
import { useRef, useState, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { Alert } from '@/components/ui/alert'
import { Button, buttonClass } from '@/components/ui/button'
import { Spinner } from '@/components/ui/spinner'
import { paths } from '@/config/paths'
import { profileOptions, type Profile } from '@/api/account/profile'
import { AnswerLostError, type insufficientCredits } from '@/api/exports/start-export'
import type { PaymentPlan } from '@/domain/cost'

/**
 * The parts every confirmation that charges credits shows alike (a search's export, filling in a list):
 * who pays and the balance afterwards, "not enough credits" with its ways out, the service's refusal,
 * and what to do when the answer to a start was lost. Their words are the `exports` namespace's.
 */

/**
 * One line of the summary. The label keeps room to wrap in any language (9rem at least, the rest of the
 * line beside a short value); a value that does not fit beside it goes below it, at the end; a note on
 * the value (the file's language, the columns' names) takes the whole width under both.
 */
export function Fact({
  label,
  value,
  valueClassName = '',
  testId,
  note,
}: {
  label: ReactNode
  value: ReactNode
  valueClassName?: string
  testId?: string
  note?: ReactNode
}) {
  return (
    <div className="flex flex-wrap items-baseline gap-x-4 gap-y-0.5">
      <dt className="min-w-0 flex-[1_1_9rem]">{label}</dt>
      <dd className={`ms-auto text-end ${valueClassName}`} data-testid={testId}>
        {value}
      </dd>
      {note && <dd className="basis-full text-xs text-slate-600 dark:text-slate-400">{note}</dd>}
    </div>
  )
}

/** Which balances pay (when the service declares its order) and the balance afterwards: lines of a `<dl>`. */
export function PaymentFacts({ payment, n }: { payment: PaymentPlan; n: (v: number) => string }) {
  const { t } = useTranslation('exports')
  if (!payment.enough) return null
  return (
    <>
      {payment.split && (
        <>
          <Fact
            label={t('fromSubscription')}
            value={n(payment.split.fromSubscription)}
            valueClassName="tabular-nums"
            testId="from-subscription"
          />
          <Fact label={t('fromPurchased')} value={n(payment.split.fromPurchased)} valueClassName="tabular-nums" testId="from-purchased" />
        </>
      )}
      <Fact
        label={
          <>
            {t('balanceAfter')}
            {payment.split && (
              <span className="block text-xs text-slate-600 dark:text-slate-400">
                {t('balanceSplit', {
                  subscription: n(payment.split.after.subscription),
                  purchased: n(payment.split.after.purchased),
                })}
              </span>
            )}
          </>
        }
        value={t('credits', { count: payment.afterTotal, formatted: n(payment.afterTotal) })}
        valueClassName="font-semibold tabular-nums"
        testId="balance-after"
      />
    </>
  )
}

/** The balance does not pay for it: the figures, the confirmation's own ways out (`children`), and the plans. */
export function NotEnoughCredits({ payment, n, children }: { payment: PaymentPlan; n: (v: number) => string; children?: ReactNode }) {
  const { t } = useTranslation('exports')
  return (
    <Alert tone="warning" title={t('notEnough')}>
      <p>{t('notEnoughBody', { required: n(payment.cost), available: n(payment.available) })}</p>
      <p className="mt-2">{t('waysOut')}</p>
      <div className="mt-2 flex flex-wrap gap-2">
        {children}
        <Link to={paths.plans} className={buttonClass('secondary')}>
          {t('seePlans')}
        </Link>
      </div>
    </Alert>
  )
}

/** The service refused for want of credits: its figures, or its own sentence when it gave none. */
export function CreditsRefused({ refused, n }: { refused: NonNullable<ReturnType<typeof insufficientCredits>>; n: (v: number) => string }) {
  const { t } = useTranslation('exports')
  return (
    <Alert tone="error" title={t('notEnough')}>
      {refused.required !== undefined && refused.available !== undefined
        ? t('serverNotEnough', { required: n(refused.required), available: n(refused.available) })
        : // the service's own reason, in its words, when it gave no figures
          t('serverNotEnoughWords', { detail: refused.detail ?? t('notEnough') })}
    </Alert>
  )
}

/** What the balance said after a start whose answer was lost. */
export type LostAnswer = 'checking' | 'charged' | 'unchanged' | 'unknown'

export const totalBalance = (p: Profile | undefined) =>
  p ? Math.max(0, p.remaining_credits ?? 0) + Math.max(0, p.purchased_credits_available) : null

/**
 * The request went out, the answer did not come back: say what the balance shows, and send again only when asked.
 * `lookIn`: where a started one would show (History, unless the confirmation names another place).
 */
export function LostAnswerNotice({
  verdict,
  onTryAgain,
  lookIn,
}: {
  verdict: LostAnswer
  onTryAgain: () => void
  lookIn?: { to: string; label: string }
}) {
  const { t } = useTranslation('exports')
  return (
    <Alert tone="warning" title={t('lost.title')}>
      <p role="status">
        {verdict === 'checking' ? (
          <span className="inline-flex items-center gap-2">
            <Spinner className="size-4" />
            {t('lost.checking')}
          </span>
        ) : (
          t(`lost.${verdict}`)
        )}
      </p>
      {verdict !== 'checking' && (
        <div className="mt-2 flex flex-wrap gap-2">
          <Link to={lookIn?.to ?? paths.history} className={buttonClass(verdict === 'charged' ? 'primary' : 'secondary')}>
            {lookIn?.label ?? t('lost.openHistory')}
          </Link>
          {verdict !== 'charged' && (
            <Button variant="secondary" onClick={onTryAgain}>
              {t('lost.tryAgain')}
            </Button>
          )}
        </div>
      )}
    </Alert>
  )
}

/**
 * A start that charges credits. A second press (double-click, Enter twice) before React re-renders must not
 * send a second request, so the guard is a ref set synchronously on the first press (`begin`). It is never
 * released after a 2xx; a refusal releases it (`failed`), as does closing (`reset`); when the answer was
 * lost on the way the balance is asked whether the start was charged, and only the person's explicit "try
 * again" (`reset`, then `begin`) sends again.
 */
export function useChargingStart() {
  const queryClient = useQueryClient()
  const sending = useRef(false)
  const [lost, setLost] = useState<LostAnswer | null>(null)
  return {
    lost,
    /** False while a start is in flight (or its answer was lost): send nothing then. */
    begin: () => {
      if (sending.current) return false
      sending.current = true
      setLost(null)
      return true
    },
    reset: () => {
      sending.current = false
      setLost(null)
    },
    /** A refusal frees the button; a lost answer compares the balance with `before` (totalBalance at the press). */
    failed: (error: unknown, before: number | null) => {
      if (!(error instanceof AnswerLostError)) {
        sending.current = false
        return
      }
      setLost('checking')
      queryClient.fetchQuery({ ...profileOptions(), staleTime: 0 }).then(
        (now) => setLost(before !== null && totalBalance(now)! < before ? 'charged' : 'unchanged'),
        () => setLost('unknown'),
      )
    },
  }
}
