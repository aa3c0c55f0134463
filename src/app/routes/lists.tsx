import { ListsPage } from '@/features/lists/components/lists-page'

export function Component() {
  return <ListsPage />
}
