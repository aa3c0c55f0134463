import { useTranslation } from 'react-i18next'
import { AuthLayout } from '@/app/layout/auth-layout'
import { ConfirmEmail } from '@/features/auth/confirm-email'
import { useDocumentTitle } from '@/lib/use-document-title'

export function Component() {
  const { t } = useTranslation('auth')
  useDocumentTitle(t('confirm.title'))
  return (
    <AuthLayout title={t('confirm.title')}>
      <ConfirmEmail />
    </AuthLayout>
  )
}
