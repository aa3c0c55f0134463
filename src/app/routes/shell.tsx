import { QueryClientProvider } from '@tanstack/react-query'
import { Navigate, Outlet, useLocation } from 'react-router'
import { AppShell } from '@/app/layout/app-shell'
import { paths } from '@/config/paths'
import { queryClient } from '@/lib/query-client'
import { useSession } from '@/lib/session'

/** Pages inside the shell need a session, except the public plans page. */
const PUBLIC_IN_SHELL: readonly string[] = [paths.plans]

export function Component() {
  const { signedIn, endReason } = useSession()
  const { pathname, search, hash } = useLocation()
  if (!signedIn && !PUBLIC_IN_SHELL.includes(pathname)) {
    // a person who signed out is not sent back; one whose session lapsed (or a visitor) is
    const params = new URLSearchParams()
    if (endReason) params.set('reason', endReason)
    if (endReason !== 'signed-out') params.set('next', `${pathname}${search}${hash}`)
    return <Navigate to={`${paths.signIn}?${params}`} replace />
  }
  return (
    <QueryClientProvider client={queryClient}>
      <AppShell signedIn={signedIn}>
        <Outlet />
      </AppShell>
    </QueryClientProvider>
  )
}
