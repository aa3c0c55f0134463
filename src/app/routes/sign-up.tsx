import { useTranslation } from 'react-i18next'
import { AuthLayout } from '@/app/layout/auth-layout'
import { SignUpForm } from '@/features/auth/sign-up-form'
import { useDocumentTitle } from '@/lib/use-document-title'

export function Component() {
  const { t } = useTranslation('auth')
  useDocumentTitle(t('signUp.title'))
  return (
    <AuthLayout title={t('signUp.title')} intro={t('signUp.intro')}>
      <SignUpForm />
    </AuthLayout>
  )
}
