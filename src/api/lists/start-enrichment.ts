import { useMutation, useQueryClient } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api, ApiError } from '@/lib/api-client'
import { profileOptions } from '@/api/account/profile'
import { exportKeys } from '@/api/exports/keys'
import { AnswerLostError, insufficientCredits } from '@/api/exports/start-export'
import { looseNumber, looseText, opaqueId } from '@/api/schemas'
import { listKeys } from './keys'

export interface StartEnrichmentInput {
  listId: string
  skip_owned: boolean
  export_format: 'csv' | 'excel'
  file_locale?: string | undefined
  /** The price the person saw: the service refuses (409 `price_changed`) rather than charge another. */
  expected_credits: number
}

/** 202 as POST /api/download-csv answers; the export's id is what the export page follows. */
const startedEnrichmentSchema = z.looseObject({
  search_id: opaqueId(),
  status: looseText(),
  lead_count: looseNumber(),
  credits_charged: looseNumber(),
  skipped_owned: looseNumber(),
})
export type StartedEnrichment = z.output<typeof startedEnrichmentSchema>

export async function startEnrichment({ listId, ...body }: StartEnrichmentInput): Promise<StartedEnrichment> {
  try {
    return await api(`/api/lists/${encodeURIComponent(listId)}/enrichment/`, { method: 'POST', body, schema: startedEnrichmentSchema })
  } catch (e) {
    // sent, but no answer: it may have started and charged (the export's id is unknown then)
    if (e instanceof TypeError) throw new AnswerLostError('', e)
    throw e
  }
}

/** 409 `price_changed`: the price moved since it was shown (a match changed, leads bought meanwhile); nothing was charged. */
export function changedPrice(error: unknown): number | null {
  if (!(error instanceof ApiError) || error.status !== 409 || error.code !== 'price_changed') return null
  const required = Number(error.body.credits_required)
  return Number.isFinite(required) ? required : null
}

export function useStartEnrichment() {
  const queryClient = useQueryClient()
  const refreshBalance = () => queryClient.invalidateQueries({ queryKey: profileOptions().queryKey })
  return useMutation({
    mutationFn: startEnrichment,
    // charged at start, like any export: the balance, what the account owns and the list's enrichments move now
    onSuccess: (_, { listId }) => {
      void Promise.all([
        refreshBalance(),
        queryClient.invalidateQueries({ queryKey: exportKeys.ownedAll() }),
        queryClient.invalidateQueries({ queryKey: listKeys.detail(listId) }),
      ])
    },
    onError: (error) => {
      if (insufficientCredits(error) || error instanceof AnswerLostError || changedPrice(error) !== null) void refreshBalance()
    },
  })
}
