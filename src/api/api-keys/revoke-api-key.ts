import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api } from '@/lib/api-client'
import { apiKeysOptions } from '@/api/api-keys/get-api-keys'

/** Revocation is permanent and immediate (interface 3.2): 204, and the key answers 401 from then on. */
export function revokeApiKey(id: string) {
  return api<undefined>(`/api/user/api-keys/${encodeURIComponent(id)}/`, { method: 'DELETE' })
}

export function useRevokeApiKey() {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: revokeApiKey,
    onSuccess: () => qc.invalidateQueries({ queryKey: apiKeysOptions().queryKey }),
  })
}
