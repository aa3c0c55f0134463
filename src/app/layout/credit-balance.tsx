import { Fragment, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { paths } from '@/config/paths'
import { useCapability } from '@/lib/api/capabilities'
import { useProfile } from '@/lib/api/profile'
import { formatNumber } from '@/lib/format'

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

/**
 * Subscription credits left of the period's total, and purchased credits: always in the header.
 * Grants and rollovers can leave more than the plan's monthly total: then "of N" would read as
 * nonsense (3,298 of 1,000), so only the number is shown.
 */
export function CreditBalance({ className = '' }: { className?: string }) {
  const { t, i18n } = useTranslation('common')
  const { data: profile, isError } = useProfile()
  const lng = i18n.resolvedLanguage ?? 'en'
  if (isError && !profile) return <p className={`text-xs text-slate-600 dark:text-slate-400 ${className}`}>{t('credits.unavailable')}</p>
  const n = (v: number | undefined) => (v === undefined ? '…' : formatNumber(lng, v))
  const left = profile?.remaining_credits
  const total = profile?.total_credits
  const aboveTotal = left !== undefined && total !== undefined && left > total
  return (
    <section aria-label={t('credits.label')} className={`flex flex-wrap items-center gap-x-4 gap-y-0.5 ${className}`}>
      <dl className="flex flex-wrap items-center gap-x-4 gap-y-0.5 text-xs leading-tight">
        <div className="flex gap-1">
          <dt className="text-slate-600 dark:text-slate-400">{t('credits.subscription')}</dt>
          <dd className="font-semibold tabular-nums" data-testid="credits-subscription">
            {aboveTotal ? n(left) : withIsolatedValues((v) => t('credits.subscriptionValue', v), { left: n(left), total: n(total) })}
          </dd>
        </div>
        <div className="flex gap-1">
          <dt className="text-slate-600 dark:text-slate-400">{t('credits.purchased')}</dt>
          <dd className="font-semibold tabular-nums" data-testid="credits-purchased">
            {n(profile?.purchased_credits_available)}
          </dd>
        </div>
      </dl>
      {(profile?.purchased_credits_expiring_soon ?? 0) > 0 && <ExpiringSoon formatted={n(profile?.purchased_credits_expiring_soon)} />}
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
