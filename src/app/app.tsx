import { RouterProvider } from 'react-router'
import type { createBrowserRouter } from 'react-router'

/**
 * The React Query client is provided by the shell route (routes/shell.tsx), not here: the
 * signed-out pages fetch nothing through it, so the sign-in page's first load goes without it.
 */
export function App({ router }: { router: ReturnType<typeof createBrowserRouter> }) {
  return <RouterProvider router={router} />
}
