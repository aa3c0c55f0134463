import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api, lazySchema } from '@/lib/api-client'
import { isMatching, listFields, POLL_MS } from './get-lists'
import { listKeys } from './keys'

/** A list with its first rows (the mapping step's preview). */
export const listDetailSchema = lazySchema(() =>
  z.looseObject({
    ...listFields(),
    preview: z.array(z.object({ row_no: z.number(), cells: z.array(z.string()) })),
  }),
)
export type ListDetail = z.output<ReturnType<typeof listDetailSchema>>

export const getList = (listId: string, signal?: AbortSignal) =>
  api(`/api/lists/${encodeURIComponent(listId)}/`, { schema: listDetailSchema, signal })

export const listOptions = (listId: string) =>
  queryOptions({
    queryKey: listKeys.detail(listId),
    queryFn: ({ signal }) => getList(listId, signal),
    refetchInterval: (q) => (isMatching(q.state.data?.status) ? POLL_MS : false),
  })
