import { WebhooksPage } from '@/features/webhooks/components/webhooks-page'

export function Component() {
  return <WebhooksPage />
}
