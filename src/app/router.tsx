import { matchRoutes, Navigate, type RouteObject } from 'react-router'
import { paths } from '@/config/paths'
import { loadPageNamespaces, type PageNamespace } from '@/lib/i18n'
import { PageSkeleton } from '@/components/page-skeleton'
import { RouteError } from './layout/route-error'
import { yieldToBrowser } from './yield-point'

/**
 * Every page is its own lazy module in ./routes exporting `Component` (and optionally
 * `ErrorBoundary`), so a page's code loads only when it is visited. Errors a page does not handle
 * itself land in RouteError: inside the shell for shell pages, full-page for the others.
 * Pages in the shell load together with the English strings they use (lib/i18n.ts); a test
 * (router-namespaces.test.ts) checks each list against the namespaces the page's code asks for,
 * and the service names the same files in the page's HTML (server/src/static.ts).
 */
const page =
  <T,>(load: () => Promise<T>, namespaces: readonly PageNamespace[]) =>
  async () =>
    (await Promise.all([load(), loadPageNamespaces(namespaces)]))[0]

export const routes: RouteObject[] = [
  {
    ErrorBoundary: RouteError,
    // painted while the first page's code loads (the same mark as index.html's)
    HydrateFallback: PageSkeleton,
    children: [
      { path: paths.signIn, lazy: () => import('./routes/sign-in') },
      { path: paths.signUp, lazy: () => import('./routes/sign-up') },
      { path: paths.forgotPassword, lazy: () => import('./routes/forgot-password') },
      { path: paths.resetPassword, lazy: () => import('./routes/reset-password') },
      { path: paths.confirmEmail, lazy: () => import('./routes/confirm-email') },
      {
        // public pages inside the shell, protected ones below it
        lazy: () => import('./routes/shell'),
        children: [
          {
            ErrorBoundary: RouteError,
            children: [
              { path: paths.plans, lazy: page(() => import('./routes/plans'), ['plans']) },
              { path: paths.home, element: <Navigate to={paths.search} replace /> },
              { path: paths.search, lazy: page(() => import('./routes/search'), ['search']) },
              { path: paths.exportJobPattern, lazy: page(() => import('./routes/export-job'), ['exports']) },
              { path: paths.history, lazy: page(() => import('./routes/history'), ['history']) },
              { path: paths.apiKeys, lazy: page(() => import('./routes/api-keys'), ['apikeys']) },
              { path: paths.webhooks, lazy: page(() => import('./routes/webhooks'), ['webhooks']) },
              { path: paths.account, lazy: page(() => import('./routes/account'), ['account']) },
            ],
          },
        ],
      },
      { path: '*', lazy: () => import('./routes/not-found') },
    ],
  },
]

/**
 * Loads the code of every lazy route matching `pathname` and puts it on the route, so the router
 * renders the page in its first render: no HydrateFallback in between, and the markup the service
 * prerendered (src/app/prerender.tsx) can be hydrated as it is (React Router's "lazy routes with SSR").
 * `preloaded`: the page's files are already being fetched (the service named them, src/main.tsx), so
 * the routes are evaluated one after the other from the outermost, each in tasks of its own (the
 * layout's modules and the page's evaluated as one graph made one long task on a slow phone); else
 * they are all asked for at once, so that none waits for another's download.
 */
export async function resolveLazyRoutes(pathname: string, { preloaded = false }: { preloaded?: boolean } = {}): Promise<void> {
  const lazy = (matchRoutes(routes, pathname) ?? []).map((m) => m.route).filter((r) => typeof r.lazy === 'function')
  const resolve = async (route: RouteObject) => {
    const mod = await (route.lazy as () => Promise<Partial<RouteObject>>)()
    Object.assign(route, { ...mod, lazy: undefined })
  }
  if (!preloaded) {
    await Promise.all(lazy.map(resolve))
    return
  }
  for (const route of lazy) {
    await resolve(route)
    await yieldToBrowser()
  }
}
