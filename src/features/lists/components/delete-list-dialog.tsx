import { useTranslation } from 'react-i18next'
import { useDeleteList } from '@/api/lists/delete-list'
import type { List } from '@/api/lists/get-lists'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Dialog } from '@/components/ui/dialog'
import { errorMessage } from '@/lib/error-message'
import { withName } from './with-name'

/** Deleting a list deletes its rows and its file for good: said before, not after. */
export function DeleteListDialog({
  list,
  onClose,
  onDeleted,
}: {
  list: Pick<List, 'id' | 'name'>
  onClose: () => void
  onDeleted: () => void
}) {
  const { t } = useTranslation('lists')
  const remove = useDeleteList()
  return (
    <Dialog
      open
      onClose={remove.isPending ? () => {} : onClose}
      title={<span className="break-words">{withName((name) => t('delete.title', { name }), list.name)}</span>}
      description={t('delete.body')}
      actions={
        <>
          <Button variant="secondary" onClick={onClose} disabled={remove.isPending}>
            {t('delete.cancel')}
          </Button>
          <Button variant="danger" loading={remove.isPending} onClick={() => remove.mutate(list.id, { onSuccess: onDeleted })}>
            {t('delete.confirm')}
          </Button>
        </>
      }
    >
      {remove.isError && <Alert tone="error">{t('delete.failed', { detail: errorMessage(remove.error) })}</Alert>}
    </Dialog>
  )
}
