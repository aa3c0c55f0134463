import { StrictMode } from 'react'
import { renderToString } from 'react-dom/server'
import { createStaticHandler, createStaticRouter, StaticRouterProvider } from 'react-router'
import { paths } from '@/config/paths'
import { initI18n } from '@/lib/i18n'
import { assumeSessionForPrerender } from '@/lib/session'
import { routes } from './router'

/**
 * Build-time rendering (the `prerender` plugin in vite.config.ts): the markup of a page as the
 * browser's first render draws it, in English, for a browser with or without a session. The service
 * puts it into the HTML (server/src/static.ts) so the page paints before any script has run, and
 * src/main.tsx hydrates it. Nothing has been fetched here, exactly as in the browser's first render:
 * every query is pending, so the page shows its loading state where data will go.
 *
 * Only pages whose first render depends on nothing but the address and the session: the reset and
 * confirmation pages read a token from the query, and a search with filters differs from this one
 * (the service sends the page only for its bare address).
 */
export type Variant = 'signed-out' | 'signed-in'
export const PRERENDERED: Readonly<Record<string, readonly Variant[]>> = {
  [paths.signIn]: ['signed-out'],
  [paths.signUp]: ['signed-out'],
  [paths.forgotPassword]: ['signed-out'],
  [paths.plans]: ['signed-out', 'signed-in'],
  [paths.search]: ['signed-in'],
}

let i18nReady: Promise<unknown> | null = null

export async function render(pathname: string, variant: Variant): Promise<string> {
  await (i18nReady ??= initI18n('en'))
  assumeSessionForPrerender(variant === 'signed-in')
  const handler = createStaticHandler(routes)
  const context = await handler.query(new Request(`http://prerender.invalid${pathname}`))
  if (context instanceof Response) throw new Error(`${pathname} (${variant}): the router answered ${context.status}`)
  const router = createStaticRouter(handler.dataRoutes, context)
  return renderToString(
    <StrictMode>
      <StaticRouterProvider router={router} context={context} hydrate={false} />
    </StrictMode>,
  )
}

/** Every prerendered page: `{ [pathname]: { [variant]: markup } }`, as dist/.vite/prerender.json holds it. */
export async function renderAll(): Promise<Record<string, Partial<Record<Variant, string>>>> {
  const pages: Record<string, Partial<Record<Variant, string>>> = {}
  for (const [pathname, variants] of Object.entries(PRERENDERED)) {
    pages[pathname] = {}
    for (const v of variants) pages[pathname][v] = await render(pathname, v)
  }
  return pages
}
