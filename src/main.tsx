import './index.css'
import { holdEarlyClicks } from './lib/early-clicks'

/**
 * The entry is this small on purpose: the page paints from the HTML (the service's prerendered markup,
 * or the brand mark) and the stylesheet alone, and the dashboard's code is fetched once that first
 * paint is on screen, so on a slow link nothing that paints shares the line with script. The files
 * of this address's page, which the service names on the root (`data-preload`, server/src/static.ts),
 * are fetched together with the app's own, in parallel rather than one after the other.
 */
const container = document.getElementById('root')!
// a tap on the painted page before its code has run is answered once it has (src/lib/early-clicks.ts)
const releaseClicks = container.dataset.prerendered ? holdEarlyClicks(container) : () => {}

await new Promise<void>((painted) => {
  // a tab opened in the background paints nothing (and runs no animation frame) until it is shown
  if (document.visibilityState === 'hidden') return painted()
  requestAnimationFrame(() => setTimeout(painted, 0))
})
// one insertion for all of them, and the app's own request in a task of its own
const links = document.createDocumentFragment()
for (const href of container.dataset.preload?.split(' ') ?? []) {
  if (!href.startsWith('/')) continue
  const link = document.createElement('link')
  link.rel = 'modulepreload'
  link.crossOrigin = ''
  link.href = href
  links.append(link)
}
document.head.append(links)
const app = import('./app/start')
// The page's first Intl formatter makes the engine build its locale data, whatever the language: 20 to
// 40 ms here, several times that on a slow phone. A signed-in page shows the account's credits at once
// (the page hint cookie of src/lib/page-hints.ts says so): paid now, in a task of its own while the
// app's code is on its way, rather than inside the first render that has the account's numbers.
await new Promise((resolve) => setTimeout(resolve, 0))
if (document.cookie.split('; ').includes('leads.signed-in=1')) new Intl.NumberFormat(document.documentElement.lang || 'en').format(0)
const { start } = await app
await start(container, releaseClicks)
