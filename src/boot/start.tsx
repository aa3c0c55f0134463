import { startTransition, StrictMode, useEffect } from 'react'
import { createRoot, hydrateRoot } from 'react-dom/client'
import { createBrowserRouter, matchRoutes, type RouteObject } from 'react-router'
// after the framework: the app chunk's modules evaluate in the next task (yield-point.ts)
import { yieldToBrowser } from './yield-point'
import { i18n, initI18n } from '@/lib/i18n'
import { isSignedIn } from '@/lib/session'
import { App } from '@/app/app'
import { routes } from '@/app/router'

/** Calls `onCommitted` once the first render is on screen, its effects run (the page is interactive). */
function Committed({ onCommitted }: { onCommitted: () => void }) {
  useEffect(onCommitted, [onCommitted])
  return null
}

/**
 * Loads the code of every lazy route matching `pathname` and puts it on the route, so the router
 * renders the page in its first render: no HydrateFallback in between, and the markup the service
 * prerendered (prerender.tsx) can be hydrated as it is (React Router's "lazy routes with SSR").
 * `preloaded`: the page's files are already being fetched (the service named them, main.tsx), so
 * the routes are evaluated one after the other from the outermost, each in tasks of its own (the
 * layout's modules and the page's evaluated as one graph made one long task on a slow phone); else
 * they are all asked for at once, so that none waits for another's download.
 */
async function resolveLazyRoutes(pathname: string, { preloaded }: { preloaded: boolean }): Promise<void> {
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

/**
 * Starts the dashboard in `container` (main.tsx calls it once the page has painted); `onInteractive`
 * runs when the first render, hydrated or drawn, has been committed.
 */
export async function start(container: HTMLElement, onInteractive: () => void = () => {}): Promise<void> {
  await yieldToBrowser()
  await Promise.all([initI18n(), resolveLazyRoutes(window.location.pathname, { preloaded: Boolean(container.dataset.preload) })])
  await yieldToBrowser()
  const router = createBrowserRouter(routes)
  await yieldToBrowser()
  const app = (
    <StrictMode>
      <App router={router} />
      <Committed onCommitted={onInteractive} />
    </StrictMode>
  )
  // The service may have sent this page's markup, rendered at build time in English for a browser with
  // or without a session (prerender.tsx): kept and hydrated when this browser would draw the
  // same, replaced otherwise. Either way the first render runs as a transition, in slices that leave
  // the main thread free between them (a slow phone stays responsive while the page starts).
  const prerendered = container.dataset.prerendered
  if (prerendered && i18n.language === 'en' && (prerendered === 'signed-in') === isSignedIn()) {
    startTransition(() => {
      hydrateRoot(container, app)
    })
  } else {
    const root = createRoot(container)
    startTransition(() => root.render(app))
  }
}
