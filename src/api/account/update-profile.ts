import { useMutation, useQueryClient } from '@tanstack/react-query'
import { profileOptions, updateProfile } from './profile'

/** PATCH the profile; the answer replaces the cached profile, so every page shows it at once. */
export function useUpdateProfile() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: updateProfile,
    onSuccess: (profile) => {
      queryClient.setQueryData(profileOptions().queryKey, profile)
    },
  })
}
