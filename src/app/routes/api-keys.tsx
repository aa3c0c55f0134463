import { ApiKeysPage } from '@/features/api-keys/components/api-keys-page'

export function Component() {
  return <ApiKeysPage />
}
