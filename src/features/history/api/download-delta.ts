import { useMutation, useQueryClient } from '@tanstack/react-query'
import { profileOptions } from '@/lib/api/profile'
import { historyKeys } from '@/api/history/keys'

import { deltaStarted, requestDelta } from './delta-request'

export { deltaResultSchema, deltaStarted, requestDelta, VALIDATION_CODES, type DeltaResult } from './delta-request'

/** `dryRun: false` starts the export and charges; the history and the balance then go stale. */
export function useDownloadDelta() {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: ({ searchId, dryRun }: { searchId: string; dryRun: boolean }) => requestDelta(searchId, dryRun),
    // a service that ignores dry_run starts (and charges) even on the check: refresh in both cases
    onSuccess: async (result) => {
      if (!deltaStarted(result)) return
      await Promise.all([
        qc.invalidateQueries({ queryKey: historyKeys.all }),
        qc.invalidateQueries({ queryKey: profileOptions().queryKey }),
      ])
    },
  })
}
