import { Navigate, Outlet, useLocation } from 'react-router'
import { AppShell } from '@/app/layout/app-shell'
import { paths } from '@/config/paths'
import { useSession } from '@/lib/session'

/** Pages inside the shell need a session, except the public plans page. */
const PUBLIC_IN_SHELL: readonly string[] = [paths.plans]

export function Component() {
  const { signedIn } = useSession()
  const { pathname, search, hash } = useLocation()
  if (!signedIn && !PUBLIC_IN_SHELL.includes(pathname)) {
    return <Navigate to={`${paths.signIn}?next=${encodeURIComponent(`${pathname}${search}${hash}`)}`} replace />
  }
  return (
    <AppShell signedIn={signedIn}>
      <Outlet />
    </AppShell>
  )
}
