import { isValidElement, StrictMode } from 'react'
import { renderToString } from 'react-dom/server'
import { createStaticHandler, createStaticRouter, Navigate, StaticRouterProvider, type NavigateProps, type RouteObject } from 'react-router'
import { routes } from '@/app/router'
import { paths } from '@/config/paths'
import { i18n, initI18n, resetLoadedNamespacesForTests } from '@/lib/i18n'
import { assumeSessionForPrerender } from '@/lib/session'

/**
 * Build-time rendering (build/vite-plugins/prerender.ts): the markup of a page as the browser's
 * first render draws it, in English, for a browser with or without a session. The service puts it
 * into the HTML (server/src/static.ts) so the page paints before any script has run, and start.tsx
 * hydrates it. Nothing has been fetched here, exactly as in the browser's first render:
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

/**
 * What the first render of each page address loads beyond the app's own code, as source files (the
 * build manifest's keys): the lazy route modules on the address's match and the English namespaces
 * they load with them, e.g. `{ '/exports/:searchId': ['src/app/routes/shell.tsx',
 * 'src/app/routes/export-job.tsx', 'locales/en/exports.json'] }`. The `prerender` plugin turns them
 * into the built files the service names on each page (dist/.vite/routes.json). Found by running the
 * router's own lazy functions, so the router stays the one list of pages; an address that redirects
 * (`<Navigate>`) gets its target's files, which the browser loads next.
 */
export async function routeSources(): Promise<Record<string, string[]>> {
  await (i18nReady ??= initI18n('en'))
  // a module imported twice is one module: what a route's lazy function returns is one of these
  const modules = import.meta.glob(['/src/app/routes/*.tsx', '!/src/app/routes/*.test.tsx'])
  const sourceOf = new Map(await Promise.all(Object.entries(modules).map(async ([file, load]) => [await load(), file.slice(1)] as const)))
  const namespaces: string[] = []
  const added = (lng: string, ns: string) => {
    if (lng === 'en') namespaces.push(`locales/en/${ns}.json`)
  }
  i18n.store.on('added', added)
  const sources: Record<string, string[]> = {}
  const redirects: [from: string, to: string][] = []
  const visit = async (list: readonly RouteObject[], parentPath: string, matched: readonly RouteObject[]) => {
    for (const route of list) {
      const path = !route.path ? parentPath : route.path.startsWith('/') ? route.path : `${parentPath.replace(/\/$/, '')}/${route.path}`
      if (route.children) await visit(route.children, path, [...matched, route])
      if (!route.path || route.path === '*') continue
      if (isValidElement<NavigateProps>(route.element) && route.element.type === Navigate) {
        redirects.push([path, String(route.element.props.to)])
        continue
      }
      // each page as on a fresh start: the namespaces an earlier page loaded are loaded (and seen) again
      resetLoadedNamespacesForTests()
      namespaces.length = 0
      const files: string[] = []
      for (const r of [...matched, route]) {
        if (typeof r.lazy !== 'function') continue
        const module = await r.lazy()
        const source = sourceOf.get(module)
        if (!source) throw new Error(`${path}: a lazy route loads a module outside src/app/routes`)
        files.push(source)
      }
      sources[path] = [...files, ...namespaces]
    }
  }
  try {
    await visit(routes, '/', [])
  } finally {
    i18n.store.off('added', added)
  }
  for (const [from, to] of redirects) {
    if (!sources[to]) throw new Error(`${from} redirects to ${to}, which is no page`)
    sources[from] = sources[to]
  }
  return sources
}
