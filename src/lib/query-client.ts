import { QueryClient } from '@tanstack/react-query'
import { ApiError } from './api-client'
import { onSessionEnd } from './session'

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 30_000,
      // 401 and 429 are handled in the fetch layer; other 4xx will not change on retry.
      // Polling stops in hidden tabs: refetchIntervalInBackground stays false (query-client.test.tsx).
      retry: (failureCount, error) => !(error instanceof ApiError && error.status >= 400 && error.status < 500) && failureCount < 2,
    },
  },
})

/**
 * When the session ends (sign-out here or in another tab, or a refresh token the service refused),
 * drop every cached response of that person. The shell's guard then sends them to sign-in, with
 * the reason and, unless they signed out themselves, the way back.
 */
onSessionEnd(() => queryClient.clear())
