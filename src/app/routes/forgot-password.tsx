import { useTranslation } from 'react-i18next'
import { AuthLayout } from '@/app/layout/auth-layout'
import { ForgotPasswordForm } from '@/features/auth/forgot-password-form'
import { useDocumentTitle } from '@/lib/use-document-title'

export function Component() {
  const { t } = useTranslation('auth')
  useDocumentTitle(t('forgot.title'))
  return (
    <AuthLayout title={t('forgot.title')} intro={t('forgot.intro')}>
      <ForgotPasswordForm />
    </AuthLayout>
  )
}
