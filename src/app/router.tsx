import { Navigate, type RouteObject } from 'react-router'
import { paths } from '@/config/paths'
import { loadPageNamespaces, type PageNamespace } from '@/lib/i18n'
import { PageSkeleton } from '@/components/page-skeleton'
import { RouteError } from './layout/route-error'

/**
 * Every page is its own lazy module in ./routes exporting `Component` (and optionally
 * `ErrorBoundary`), so a page's code loads only when it is visited. Errors a page does not handle
 * itself land in RouteError: inside the shell for shell pages, full-page for the others.
 * Pages in the shell load together with the English strings they use (lib/i18n.ts); a test
 * (router-namespaces.test.ts) checks each list against the namespaces the page's code asks for.
 * The build reads this list, running its lazy functions, to name each page's files in its HTML
 * (src/boot/prerender.tsx, server/src/static.ts).
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
              { path: paths.lists, lazy: page(() => import('./routes/lists'), ['lists']) },
              { path: paths.listPattern, lazy: page(() => import('./routes/list'), ['lists']) },
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
