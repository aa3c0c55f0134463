import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { Alert } from '@/components/ui/alert'
import { paths } from '@/config/paths'
import { useCapability } from '@/api/capabilities/get-capabilities'
import type { Profile } from '@/api/account/profile'
import { formatDate, formatNumber } from '@/lib/format'

export function CreditsPanel({ profile }: { profile: Profile }) {
  const { t, i18n } = useTranslation('account')
  const spendsExpiringFirst = useCapability('credit_order')
  const lng = i18n.language
  const n = (v: number) => formatNumber(lng, v)
  const plan = profile.subscription_plan
  const total = profile.total_credits || plan?.monthly_credits || 0
  const left = profile.remaining_credits
  const start = profile.current_period_start
  const end = profile.current_period_end
  const period =
    start && end
      ? t('credits.periodRange', { start: formatDate(lng, start), end: formatDate(lng, end) })
      : start
        ? formatDate(lng, start)
        : end
          ? formatDate(lng, end)
          : t('credits.periodUnknown')

  return (
    <div className="space-y-4">
      <dl className="grid gap-4 sm:grid-cols-2">
        <div>
          <dt className="text-sm text-slate-600 dark:text-slate-400">{t('credits.plan')}</dt>
          <dd className="text-lg font-semibold capitalize">{plan ? <bdi>{plan.plan_type}</bdi> : t('credits.noPlan')}</dd>
          {plan && <dd className="text-sm">{t('credits.monthly', { count: plan.monthly_credits, n: n(plan.monthly_credits) })}</dd>}
        </div>
        <div>
          <dt className="text-sm text-slate-600 dark:text-slate-400">{t('credits.period')}</dt>
          <dd className="font-medium" data-testid="billing-period">
            {period}
          </dd>
        </div>
        <div>
          <dt id="subscription-credits-label" className="text-sm text-slate-600 dark:text-slate-400">
            {t('credits.subscription')}
          </dt>
          {/* an address not confirmed yet (extension email_confirmation) has none: "0 of 100" would read as
              spent. The way to the link is the shell's banner above, on this page too: one button, not two */}
          {profile.email_confirmed === false ? (
            <dd className="font-medium">{t('credits.confirmToReceive')}</dd>
          ) : (
            <>
              <dd className="font-medium">{t('credits.subscriptionLeft', { left: n(left), total: n(total) })}</dd>
              <dd>
                <meter
                  className="mt-1 h-3 w-full"
                  min={0}
                  max={Math.max(total, left, 1)}
                  low={Math.max(total, 1) * 0.2}
                  optimum={Math.max(total, 1)}
                  value={Math.max(0, left)}
                  aria-label={t('credits.meterLabel')}
                />
              </dd>
            </>
          )}
        </div>
        <div>
          <dt className="text-sm text-slate-600 dark:text-slate-400">{t('credits.purchased')}</dt>
          <dd className="font-medium">{t('credits.purchasedAvailable', { n: n(profile.purchased_credits_available) })}</dd>
        </div>
        <div className="sm:col-span-2">
          <dt className="text-sm text-slate-600 dark:text-slate-400">{t('credits.fresh')}</dt>
          <dd className="font-medium">
            <span>{profile.can_download_fresh_exports ? t('credits.freshYes') : t('credits.freshNo')}</span>
            {!profile.can_download_fresh_exports && (
              <>
                {' · '}
                <Link to={paths.plans} className="text-brand-700 underline dark:text-brand-100">
                  {t('credits.seePlans')}
                </Link>
              </>
            )}
          </dd>
        </div>
      </dl>
      {profile.purchased_credits_expiring_soon > 0 && (
        <Alert tone="warning">
          {/* "use them first" only from a service that spends the credits that expire first (extension credit_order) */}
          {t(spendsExpiringFirst ? 'credits.expiringSoon' : 'credits.expiringFact', {
            count: profile.purchased_credits_expiring_soon,
            n: n(profile.purchased_credits_expiring_soon),
          })}
        </Alert>
      )}
    </div>
  )
}
