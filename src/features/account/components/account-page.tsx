import { useQuery } from '@tanstack/react-query'
import { useTranslation } from 'react-i18next'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card } from '@/components/ui/card'
import { useCapability } from '@/api/capabilities/get-capabilities'
import { capToSpendExpiring, profileOptions } from '@/api/account/profile'
import { weeklyUsageOptions } from '@/api/account/get-credit-usage'
import { CreditsPanel } from './credits-panel'
import { ExpiringCreditsPlan } from './expiring-credits-plan'
import { PasswordForm } from './password-form'
import { ProfileForm } from './profile-form'
import { UsageChart } from './usage-chart'

export const USAGE_WEEKS = 12

export function AccountPage() {
  const { t } = useTranslation('account')
  const profile = useQuery(profileOptions())
  const account = profile.data ? String(profile.data.id) : undefined
  const usage = useQuery({ ...weeklyUsageOptions(USAGE_WEEKS, account), enabled: account !== undefined })
  const canChangePassword = useCapability('password_change')
  // a plan to use the purchased credits about to expire, only from a service that spends the credits that
  // expire first (extension credit_order) and lists its balances in that order (issue 21)
  const spendsExpiringFirst = useCapability('credit_order')
  const lots = profile.data?.credit_lots
  const expiringCap = spendsExpiringFirst && lots ? capToSpendExpiring(lots, profile.data?.purchased_credits_expiring_soon ?? 0) : null

  return (
    <main className="mx-auto w-full min-w-0 max-w-5xl space-y-6">
      <h1 className="text-2xl font-semibold">{t('title')}</h1>
      {profile.isPending && (
        <p role="status" className="text-sm">
          {t('loading')}
        </p>
      )}
      {profile.isError && (
        <Alert tone="error" title={t('error.title')}>
          <Button variant="secondary" className="mt-2" onClick={() => void profile.refetch()}>
            {t('error.retry')}
          </Button>
        </Alert>
      )}
      {profile.data && (
        <div className="grid gap-6 lg:grid-cols-2">
          <Card title={t('credits.title')}>
            <CreditsPanel profile={profile.data} />
          </Card>
          {expiringCap !== null && (
            <Card title={t('expiring.title')} id="expiring" className="lg:col-start-1">
              <ExpiringCreditsPlan expiring={profile.data.purchased_credits_expiring_soon} capTo={expiringCap} />
            </Card>
          )}
          <Card title={t('profile.title')}>
            {/* keyed by id: the form takes the loaded profile as its defaults */}
            <ProfileForm key={String(profile.data.id)} profile={profile.data} />
          </Card>
          {canChangePassword && (
            <Card title={t('password.title')} className="lg:col-start-2">
              <PasswordForm />
            </Card>
          )}
        </div>
      )}
      <Card title={t('usage.title')}>
        {usage.isPending && (
          <p role="status" className="text-sm">
            {t('usage.loading')}
          </p>
        )}
        {usage.isError && (
          <Alert tone="error">
            {t('usage.error')}{' '}
            <Button variant="secondary" className="mt-2" onClick={() => void usage.refetch()}>
              {t('usage.retry')}
            </Button>
          </Alert>
        )}
        {usage.data?.source === 'browser' && <p className="mb-2 text-sm text-slate-600 dark:text-slate-400">{t('usage.fromBrowser')}</p>}
        {usage.data && <UsageChart weeks={usage.data.weeks} />}
      </Card>
    </main>
  )
}
