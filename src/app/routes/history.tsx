import { HistoryPage } from '@/features/history/components/history-page'

export function Component() {
  return <HistoryPage />
}
