import { startTransition, StrictMode, useEffect } from 'react'
import { createRoot, hydrateRoot } from 'react-dom/client'
import { createBrowserRouter } from 'react-router'
// after the framework: the app chunk's modules evaluate in the next task (yield-point.ts)
import { yieldToBrowser } from './yield-point'
import { i18n, initI18n } from '@/lib/i18n'
import { isSignedIn } from '@/lib/session'
import { App } from './app'
import { resolveLazyRoutes, routes } from './router'

/** Calls `onCommitted` once the first render is on screen, its effects run (the page is interactive). */
function Committed({ onCommitted }: { onCommitted: () => void }) {
  useEffect(onCommitted, [onCommitted])
  return null
}

/**
 * Starts the dashboard in `container` (src/main.tsx calls it once the page has painted); `onInteractive`
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
  // or without a session (src/app/prerender.tsx): kept and hydrated when this browser would draw the
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
