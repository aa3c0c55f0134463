import { lazy, Suspense } from 'react'
import { loadPageNamespaces } from '@/lib/i18n'

export interface EnrichDialogProps {
  listId: string
  listName: string
  open: boolean
  onClose: () => void
}

// the confirmation, its credit parts and their words (the exports' and the columns' names) load when it first opens
const EnrichConfirm = lazy(() =>
  Promise.all([import('./enrich-confirm'), loadPageNamespaces(['exports', 'columns'])]).then(([m]) => ({ default: m.EnrichConfirm })),
)

/**
 * "Fill in my list": the price of filling in a matched list, through the same confirmation as an export
 * (the balance, "not enough credits", who pays), then the export page of the file being made.
 */
export function EnrichDialog(props: EnrichDialogProps) {
  if (!props.open) return null
  return (
    <Suspense fallback={null}>
      <EnrichConfirm {...props} />
    </Suspense>
  )
}
