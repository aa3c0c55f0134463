import { useParams } from 'react-router'
import { ListPage } from '@/features/lists/components/list-page'

export function Component() {
  const { listId = '' } = useParams()
  // a new list is a new page: its steps and filters start afresh
  return <ListPage key={listId} listId={listId} />
}
