import { useQuery } from '@tanstack/react-query'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { paths } from '@/config/paths'
import { plansOptions, type Plan } from '@/api/plans/get-plans'
import { useProfile } from '@/api/account/profile'
import { useSession } from '@/lib/session'
import { formatMoney, formatNumber } from '@/lib/format'

/** Plans worth showing: on sale and active; the person's own plan always, even if no longer sold. */
export function visiblePlans(plans: Plan[], currentType: string | null): Plan[] {
  return plans
    .filter((p) => (p.is_active && p.is_sellable) || p.plan_type === currentType)
    .sort((a, b) => Number(a.price_per_month) - Number(b.price_per_month) || a.monthly_credits - b.monthly_credits)
}

export function pricePerLead(plan: Pick<Plan, 'price_per_month' | 'monthly_credits'>): number | null {
  const price = Number(plan.price_per_month)
  if (!Number.isFinite(price) || plan.monthly_credits <= 0) return null
  return price / plan.monthly_credits
}

export function PlansPage() {
  const { t } = useTranslation('plans')
  const plans = useQuery(plansOptions())
  const { signedIn } = useSession()
  const profile = useProfile()
  const currentType = profile.data?.subscription_plan?.plan_type ?? null

  return (
    <main className="mx-auto w-full min-w-0 max-w-5xl">
      <h1 className="text-2xl font-semibold">{t('title')}</h1>
      <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{t('intro')}</p>
      {!signedIn && (
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">
          <Link to={paths.signIn} className="font-medium text-brand-700 underline dark:text-brand-100">
            {t('signInHint')}
          </Link>
        </p>
      )}

      <div className="mt-6">
        {plans.isPending && (
          <p role="status" className="text-sm">
            {t('loading')}
          </p>
        )}
        {plans.isError && (
          <Alert tone="error" title={t('error.title')}>
            <Button variant="secondary" className="mt-2" onClick={() => void plans.refetch()}>
              {t('error.retry')}
            </Button>
          </Alert>
        )}
        {plans.data && visiblePlans(plans.data, currentType).length === 0 && <p>{t('empty')}</p>}
        {plans.data && (
          <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
            {visiblePlans(plans.data, currentType).map((plan) => (
              <li key={plan.id ?? plan.plan_type}>
                <PlanCard plan={plan} current={plan.plan_type === currentType} />
              </li>
            ))}
          </ul>
        )}
      </div>
    </main>
  )
}

function PlanCard({ plan, current }: { plan: Plan; current: boolean }) {
  const { t, i18n } = useTranslation('plans')
  const lng = i18n.language
  const price = Number(plan.price_per_month)
  const perLead = pricePerLead(plan)
  const titleId = `plan-${plan.plan_type}`
  const rows: [string, string][] = [
    [t('credits'), formatNumber(lng, plan.monthly_credits)],
    [t('pricePerLead'), perLead === null ? '—' : formatMoney(lng, perLead, 'USD', 4)],
    [t('linkValidity'), t('days', { count: plan.link_expiration_days })],
    [t('fresh'), plan.allows_fresh_exports ? t('yes') : t('no')],
  ]
  return (
    <article
      aria-labelledby={titleId}
      aria-current={current || undefined}
      className={`flex h-full flex-col rounded-lg border bg-white p-5 shadow-xs dark:bg-slate-900 ${
        current ? 'border-brand-600 ring-2 ring-brand-600' : 'border-slate-200 dark:border-slate-800'
      }`}
    >
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id={titleId} className="text-lg font-semibold capitalize">
          {plan.plan_type}
        </h2>
        {current && <span className="rounded-full bg-brand-100 px-2.5 py-0.5 text-xs font-semibold text-brand-700">{t('current')}</span>}
      </div>
      <p className="mt-2 text-2xl font-bold">{price > 0 ? t('perMonth', { price: formatMoney(lng, price) }) : t('free')}</p>
      <dl className="mt-4 space-y-2 text-sm">
        {rows.map(([label, value]) => (
          <div key={label} className="flex justify-between gap-3">
            <dt className="text-slate-600 dark:text-slate-400">{label}</dt>
            <dd className="text-end font-medium tabular-nums">{value}</dd>
          </div>
        ))}
      </dl>
    </article>
  )
}
