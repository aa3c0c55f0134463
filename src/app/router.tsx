import { createBrowserRouter, Navigate } from 'react-router'
import { paths } from '@/config/paths'
import { RouteError } from './layout/route-error'

/**
 * Every page is its own lazy module in ./routes exporting `Component` (and optionally
 * `ErrorBoundary`), so a page's code loads only when it is visited. Errors a page does not handle
 * itself land in RouteError: inside the shell for shell pages, full-page for the others.
 */
export const router = createBrowserRouter([
  {
    ErrorBoundary: RouteError,
    children: [
      { path: paths.signIn, lazy: () => import('./routes/sign-in') },
      { path: paths.signUp, lazy: () => import('./routes/sign-up') },
      { path: paths.forgotPassword, lazy: () => import('./routes/forgot-password') },
      { path: paths.resetPassword, lazy: () => import('./routes/reset-password') },
      {
        // public pages inside the shell, protected ones below it
        lazy: () => import('./routes/shell'),
        children: [
          {
            ErrorBoundary: RouteError,
            children: [
              { path: paths.plans, lazy: () => import('./routes/plans') },
              { path: paths.home, element: <Navigate to={paths.search} replace /> },
              { path: paths.search, lazy: () => import('./routes/search') },
              { path: paths.exportJobPattern, lazy: () => import('./routes/export-job') },
              { path: paths.history, lazy: () => import('./routes/history') },
              { path: paths.apiKeys, lazy: () => import('./routes/api-keys') },
              { path: paths.account, lazy: () => import('./routes/account') },
            ],
          },
        ],
      },
      { path: '*', lazy: () => import('./routes/not-found') },
    ],
  },
])
