import { AuthLayout } from '@/app/layout/auth-layout'
import { ConfirmEmail } from '@/features/auth/confirm-email'

export function Component() {
  return <ConfirmEmail frame={(title, outcome) => <AuthLayout title={title}>{outcome}</AuthLayout>} />
}
