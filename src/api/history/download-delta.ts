import { useMutation, useQueryClient } from '@tanstack/react-query'
import { profileOptions } from '@/api/account/profile'
import { deltaStarted, requestDelta } from './delta-request'
import { historyKeys } from './keys'

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
