import type { QueryClient, QueryKey } from '@tanstack/react-query'
import { listKeys } from './keys'

/** A search's query that leaves this list's businesses out (`exclude_lists`, in a preview, facets, cells or owned key). */
const leavesOut = (key: QueryKey, listId: string) =>
  key.some((part) => {
    const lists = typeof part === 'object' && part !== null ? (part as { exclude_lists?: unknown }).exclude_lists : undefined
    return Array.isArray(lists) && lists.some((id) => String(id) === listId)
  })

/**
 * What a change to a list makes stale: the list, its report, its rows, the index that shows its
 * status and counts, and every search answer that left its businesses out (their counts follow its
 * matches at once on the service; without this the search page would show the old count until its
 * answers grow stale).
 */
export const invalidateList = (qc: QueryClient, listId: string) =>
  Promise.all([
    qc.invalidateQueries({ queryKey: listKeys.detail(listId) }),
    qc.invalidateQueries({ queryKey: listKeys.report(listId) }),
    qc.invalidateQueries({ queryKey: listKeys.rowsOf(listId) }),
    qc.invalidateQueries({ queryKey: listKeys.index() }),
    qc.invalidateQueries({ predicate: (query) => leavesOut(query.queryKey, listId) }),
  ])
