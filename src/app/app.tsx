import { QueryClientProvider } from '@tanstack/react-query'
import { RouterProvider } from 'react-router'
import { queryClient } from '@/lib/query-client'
import { onSessionEnd } from '@/lib/session'
import { router } from './router'

/**
 * When the session ends (sign-out here or in another tab, or a refresh token the service refused),
 * drop every cached response of that person. The shell's guard then sends them to sign-in, with
 * the reason and, unless they signed out themselves, the way back.
 */
onSessionEnd(() => queryClient.clear())

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  )
}
