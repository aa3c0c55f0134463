import { useTranslation } from 'react-i18next'
import { Navigate, useSearchParams } from 'react-router'
import { AuthLayout } from '@/app/layout/auth-layout'
import { SignInForm } from '@/features/auth/sign-in-form'
import { safeNext } from '@/features/auth/safe-next'
import { useDocumentTitle } from '@/lib/use-document-title'
import { useSession } from '@/lib/session'

export function Component() {
  const { t } = useTranslation('auth')
  const { signedIn } = useSession()
  const [params] = useSearchParams()
  useDocumentTitle(t('signIn.title'))
  // already signed in (e.g. in another tab): go where the person was heading
  if (signedIn) return <Navigate to={safeNext(params.get('next'))} replace />
  return (
    <AuthLayout title={t('signIn.title')} intro={t('signIn.intro')}>
      <SignInForm />
    </AuthLayout>
  )
}
