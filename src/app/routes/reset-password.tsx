import { useTranslation } from 'react-i18next'
import { AuthLayout } from '@/app/layout/auth-layout'
import { ResetPasswordForm } from '@/features/auth/reset-password-form'
import { useDocumentTitle } from '@/lib/use-document-title'

export function Component() {
  const { t } = useTranslation('auth')
  useDocumentTitle(t('reset.title'))
  return (
    <AuthLayout title={t('reset.title')}>
      <ResetPasswordForm />
    </AuthLayout>
  )
}
