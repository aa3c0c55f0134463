import { PlansPage } from '@/features/plans/components/plans-page'

export function Component() {
  return <PlansPage />
}
