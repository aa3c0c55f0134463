import { keepPreviousData, queryOptions } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api, lazySchema } from '@/lib/api-client'
import { listKeys, type RowStatus } from './keys'

const company = () => ({
  company_id: z.number(),
  name: z.nullish(z.string()),
  city: z.nullish(z.string()),
  street: z.nullish(z.string()),
  postal_code: z.nullish(z.string()),
})

/** One row of the person's file with its match (also PUT …/match/'s answer). */
export const rowSchema = lazySchema(() =>
  z.looseObject({
    row_no: z.number(),
    cells: z.array(z.string()),
    /** Null until the job has reached the row. */
    status: z.nullable(z.string()),
    match: z.nullish(z.looseObject({ ...company(), rule: z.string(), confidence: z.number() })),
    /** An ambiguous row's candidates, best first (at most 5), to pick from by hand. */
    candidates: z.optional(z.array(z.looseObject({ ...company(), website: z.nullish(z.string()) }))),
  }),
)
export type ListRow = z.output<ReturnType<typeof rowSchema>>
export type Candidate = NonNullable<ListRow['candidates']>[number]

const rowsPageSchema = lazySchema(() =>
  z.looseObject({ count: z.number(), page: z.number(), page_size: z.number(), results: z.array(rowSchema()) }),
)
export type RowsPage = z.output<ReturnType<typeof rowsPageSchema>>

export const getRows = (listId: string, status: RowStatus | null, page: number, signal?: AbortSignal) =>
  api(`/api/lists/${encodeURIComponent(listId)}/rows/`, { query: { status, page }, schema: rowsPageSchema, signal })

export const rowsOptions = (listId: string, status: RowStatus | null, page: number) =>
  queryOptions({
    queryKey: listKeys.rows(listId, status, page),
    queryFn: ({ signal }) => getRows(listId, status, page, signal),
    // the table keeps its rows while the next page or filter loads, rather than jumping to a spinner
    placeholderData: keepPreviousData,
  })
