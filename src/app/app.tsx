import { QueryClientProvider } from '@tanstack/react-query'
import { RouterProvider } from 'react-router'
import { queryClient } from '@/lib/query-client'
import { onSessionEnd } from '@/lib/session'
import { paths } from '@/config/paths'
import { router } from './router'

const PUBLIC_PATHS: readonly string[] = [paths.signIn, paths.signUp, paths.forgotPassword, paths.resetPassword, paths.plans]

/**
 * When the session ends (sign-out here or in another tab, or a refresh token the service refused):
 * drop every cached response of that person and send them to sign-in with a way back.
 */
onSessionEnd((reason) => {
  queryClient.clear()
  const { pathname, search, hash } = router.state.location
  if (PUBLIC_PATHS.includes(pathname)) return
  const next = `${pathname}${search}${hash}`
  const params = new URLSearchParams({ reason })
  if (reason === 'expired' && next !== '/') params.set('next', next)
  void router.navigate(`${paths.signIn}?${params}`, { replace: true })
})

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  )
}
