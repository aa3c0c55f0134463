import { Fragment, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { paths } from '@/config/paths'
import { useCapability } from '@/api/capabilities/get-capabilities'
import { useProfile } from '@/api/account/profile'
import { formatNumber } from '@/lib/format'
import { useDisclosure } from './use-disclosure'

/**
 * A translated sentence with its values each in a <bdi>: numbers sitting in Hebrew text keep their
 * own direction and do not pull the words around them out of order. The values go through the
 * translation as markers, so the translations stay plain strings.
 */
function withIsolatedValues<K extends string>(translate: (values: Record<K, string>) => string, values: Record<K, string>): ReactNode {
  const keys = Object.keys(values) as K[]
  const markers = Object.fromEntries(keys.map((k, i) => [k, `\uE000${i}\uE000`])) as Record<K, string>
  return translate(markers)
    .split(/\uE000(\d+)\uE000/)
    .map((part, i) => (i % 2 === 1 ? <bdi key={i}>{values[keys[Number(part)]!]}</bdi> : <Fragment key={i}>{part}</Fragment>))
}

/** The one disclosure of the credit breakdown: a fixed id lets aria-controls and tests find it. */
const CREDIT_BREAKDOWN_ID = 'credit-breakdown'

/**
 * What the account can spend, always in the header ("1,550 credits left"), as a button that shows where
 * the credits come from: the subscription's left of the period's total, and purchased ones. Grants and
 * rollovers can leave more than the plan's monthly total: then "of N" would read as nonsense (3,298 of
 * 1,000), so only the number is shown. An account whose address is not confirmed yet (extension
 * `email_confirmed: false`) has no subscription credits: its plan's arrive with the confirmation.
 */
export function CreditBalance({ className = '' }: { className?: string }) {
  const { t, i18n } = useTranslation('common')
  const { data: profile, isError } = useProfile()
  const { open, setOpen, rootRef, buttonRef, onBlur } = useDisclosure()
  const lng = i18n.resolvedLanguage ?? 'en'
  if (!profile) {
    return (
      <section aria-label={t('credits.label')} className={`px-2 py-1 text-xs text-slate-600 dark:text-slate-400 ${className}`}>
        {isError ? t('credits.unavailable') : t('loading')}
      </section>
    )
  }
  const n = (v: number) => formatNumber(lng, v)
  const confirmed = profile.email_confirmed !== false
  const left = profile.remaining_credits
  const total = profile.total_credits
  const purchased = profile.purchased_credits_available
  const spendable = (confirmed ? left : 0) + purchased
  return (
    <section aria-label={t('credits.label')} className={`flex flex-wrap items-center gap-x-4 gap-y-0.5 ${className}`}>
      <div ref={rootRef} className="relative" onBlur={onBlur}>
        <button
          ref={buttonRef}
          type="button"
          className="inline-flex items-center gap-1 rounded-md px-2 py-1 text-sm hover:bg-slate-100 dark:hover:bg-slate-800"
          aria-expanded={open}
          aria-controls={CREDIT_BREAKDOWN_ID}
          onClick={() => setOpen((o) => !o)}
          data-testid="credits-left"
        >
          <span className="tabular-nums">
            {withIsolatedValues((v) => t('credits.left', { count: spendable, ...v }), { formatted: n(spendable) })}
          </span>
          <svg viewBox="0 0 20 20" className={`size-4 shrink-0 ${open ? 'rotate-180' : ''}`} fill="currentColor" aria-hidden="true">
            <path d="M5.3 7.3a1 1 0 0 1 1.4 0L10 10.6l3.3-3.3a1 1 0 1 1 1.4 1.4l-4 4a1 1 0 0 1-1.4 0l-4-4a1 1 0 0 1 0-1.4Z" />
          </svg>
        </button>
        <div
          id={CREDIT_BREAKDOWN_ID}
          hidden={!open}
          className="absolute start-0 top-full z-50 mt-1 w-72 max-w-[calc(100vw-1.5rem)] rounded-md border border-slate-200 bg-white p-3 text-sm shadow-lg sm:end-0 sm:start-auto dark:border-slate-700 dark:bg-slate-900"
        >
          <dl className="space-y-2">
            {confirmed && (
              <div>
                <dt className="text-xs text-slate-600 dark:text-slate-400">{t('credits.subscription')}</dt>
                <dd className="font-semibold tabular-nums" data-testid="credits-subscription">
                  {left > total ? n(left) : withIsolatedValues((v) => t('credits.subscriptionLeft', v), { left: n(left), total: n(total) })}
                </dd>
              </div>
            )}
            <div>
              <dt className="text-xs text-slate-600 dark:text-slate-400">{t('credits.purchased')}</dt>
              <dd className="font-semibold tabular-nums" data-testid="credits-purchased">
                {n(purchased)}
              </dd>
            </div>
          </dl>
          {!confirmed && <p className="mt-2 text-slate-700 dark:text-slate-300">{t('credits.afterConfirm')}</p>}
        </div>
      </div>
      {profile.purchased_credits_expiring_soon > 0 && <ExpiringSoon formatted={n(profile.purchased_credits_expiring_soon)} />}
    </section>
  )
}

/**
 * Purchased credits about to expire. The account page's plan to use exactly them is linked only when the
 * service says it spends the credits that expire first (extension credit_order): otherwise an export may
 * well be paid from the subscription and leave them to expire, so only the fact is stated.
 */
function ExpiringSoon({ formatted }: { formatted: string }) {
  const { t } = useTranslation('common')
  const spendsExpiringFirst = useCapability('credit_order')
  const text = t('credits.expiring', { formatted })
  const className = 'text-xs font-medium text-amber-800 dark:text-amber-300'
  return spendsExpiringFirst ? (
    <Link to={`${paths.account}#expiring`} className={`${className} underline`} data-testid="credits-expiring">
      {text}
    </Link>
  ) : (
    <span className={className} data-testid="credits-expiring">
      {text}
    </span>
  )
}
