import { useMutation, useQueryClient } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api, ApiError } from '@/lib/api-client'
import { profileOptions } from '@/api/account/profile'
import { historyKeys } from '../history/keys'
import { looseNumber, looseText, optionalOpaqueId } from '../schemas'
import { exportKeys } from './keys'

export const startExportInput = z.object({
  search_id: z.string().check(z.minLength(1)),
  export_format: z.enum(['csv', 'excel']),
  max_leads: z.optional(z.int().check(z.gte(1), z.lte(2_147_483_647))),
  // extensions of the reference service (sent only when it lists them at /api/capabilities/)
  skip_owned: z.optional(z.boolean()),
  columns: z.optional(z.array(z.string()).check(z.minLength(1))),
  file_locale: z.optional(z.string()),
  email_columns: z.optional(z.enum(['joined', 'split'])),
})
export type StartExportInput = z.infer<typeof startExportInput>

/**
 * The answer of `POST /api/download-csv/` is "not shown" (interface 4.2): a 2xx, even empty or 204,
 * means the export was accepted and charged. Nothing in it is required, and nothing in it can make
 * the start look failed: a field that is missing or unreadable is simply unknown.
 */
const startedAnswerSchema = z.catch(
  z.looseObject({
    search_id: optionalOpaqueId(),
    status: looseText(),
    lead_count: looseNumber(),
    credits_charged: looseNumber(),
    skipped_owned: looseNumber(),
    // extension credit_order: which balances paid
    charged_from: z.catch(z.optional(z.looseObject({ subscription: looseNumber(), purchased: looseNumber() })), undefined),
  }),
  { status: undefined, lead_count: undefined, credits_charged: undefined, skipped_owned: undefined },
)

export interface StartedExport {
  /** The export's id: the answer's, else the request's own (decisions.md: "the request's own search_id names the export"). */
  search_id: string
  status?: string | undefined
  lead_count?: number | undefined
  credits_charged?: number | undefined
  skipped_owned?: number | undefined
  charged_from?: { subscription?: number | undefined; purchased?: number | undefined } | undefined
}

/**
 * The request was sent but no answer came (the connection dropped, the tab went offline): the
 * service may have started the export and charged. Never a reason to send it again unasked.
 */
export class AnswerLostError extends Error {
  readonly searchId: string
  constructor(searchId: string, cause: unknown) {
    super('The export request was sent, but its answer did not arrive.', { cause })
    this.name = 'AnswerLostError'
    this.searchId = searchId
  }
}

export async function startExport(input: StartExportInput): Promise<StartedExport> {
  const body = startExportInput.parse(input)
  // the reference's ids are integers: send a number when the id is one, any other id as it came
  const searchId = /^\d+$/.test(body.search_id) && body.search_id.length < 16 ? Number(body.search_id) : body.search_id
  let answer: z.output<typeof startedAnswerSchema> | undefined
  try {
    answer = await api('/api/download-csv/', { method: 'POST', body: { ...body, search_id: searchId }, schema: startedAnswerSchema })
  } catch (e) {
    // an answer (any status) says what happened; a fetch that failed after sending does not
    if (e instanceof TypeError) throw new AnswerLostError(body.search_id, e)
    throw e
  }
  return { ...answer, search_id: answer?.search_id ?? body.search_id }
}

/**
 * Not enough credits: 403 with `validation_code: "insufficient_credits"` (the public service's docs),
 * or a 402 (Payment Required), or a 403 whose words speak of credits. The service's own figures
 * and sentence when it sent them; the caller shows `detail` rather than a generic refusal.
 */
export function insufficientCredits(
  error: unknown,
): { required: number | undefined; available: number | undefined; detail: string | undefined } | null {
  if (!(error instanceof ApiError)) return null
  const byCode = error.validationCode === 'insufficient_credits' || error.code === 'insufficient_credits'
  const byStatus = error.status === 402
  const byWords = error.status === 403 && !error.validationCode && /credit|balance|insufficient/i.test(error.detail)
  if (!byCode && !byStatus && !byWords) return null
  const num = (v: unknown) =>
    typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : undefined
  const detail = error.detail.startsWith('Request failed') ? undefined : error.detail
  return { required: num(error.body.required_credits), available: num(error.body.available_credits), detail }
}

export function useStartExport() {
  const queryClient = useQueryClient()
  const refreshBalance = () => queryClient.invalidateQueries({ queryKey: profileOptions().queryKey })
  return useMutation({
    mutationFn: startExport,
    // credits are charged when the export starts: the shell's balance must show it now, the leads it
    // holds are the account's from now on, and History has a new entry. Marked stale at once, reloaded
    // in the background: the person moves to the export page without waiting for the reloads.
    onSuccess: () => {
      void Promise.all([
        refreshBalance(),
        queryClient.invalidateQueries({ queryKey: exportKeys.ownedAll() }),
        queryClient.invalidateQueries({ queryKey: historyKeys.all }),
      ])
    },
    // a refusal means the balance shown was stale; a lost answer may have charged
    onError: (error) => {
      if (insufficientCredits(error) || error instanceof AnswerLostError) void refreshBalance()
    },
  })
}
