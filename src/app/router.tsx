import { createBrowserRouter, Navigate } from 'react-router'
import { paths } from '@/config/paths'
import { loadPageNamespaces } from '@/lib/i18n'
import { RouteError } from './layout/route-error'

/**
 * Every page is its own lazy module in ./routes exporting `Component` (and optionally
 * `ErrorBoundary`), so a page's code loads only when it is visited. Errors a page does not handle
 * itself land in RouteError: inside the shell for shell pages, full-page for the others.
 * Signed-in pages load together with the English strings of the signed-in pages (lib/i18n.ts).
 */
const page = <T,>(load: () => Promise<T>) => async () => (await Promise.all([load(), loadPageNamespaces()]))[0]

export const router = createBrowserRouter([
  {
    ErrorBoundary: RouteError,
    children: [
      { path: paths.signIn, lazy: () => import('./routes/sign-in') },
      { path: paths.signUp, lazy: () => import('./routes/sign-up') },
      { path: paths.forgotPassword, lazy: () => import('./routes/forgot-password') },
      { path: paths.resetPassword, lazy: () => import('./routes/reset-password') },
      { path: paths.confirmEmail, lazy: () => import('./routes/confirm-email') },
      {
        // public pages inside the shell, protected ones below it
        lazy: page(() => import('./routes/shell')),
        children: [
          {
            ErrorBoundary: RouteError,
            children: [
              { path: paths.plans, lazy: page(() => import('./routes/plans')) },
              { path: paths.home, element: <Navigate to={paths.search} replace /> },
              { path: paths.search, lazy: page(() => import('./routes/search')) },
              { path: paths.exportJobPattern, lazy: page(() => import('./routes/export-job')) },
              { path: paths.history, lazy: page(() => import('./routes/history')) },
              { path: paths.apiKeys, lazy: page(() => import('./routes/api-keys')) },
              { path: paths.account, lazy: page(() => import('./routes/account')) },
            ],
          },
        ],
      },
      { path: '*', lazy: () => import('./routes/not-found') },
    ],
  },
])
