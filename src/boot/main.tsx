import '../index.css'
import { holdEarlyClicks } from './early-clicks'

/**
 * The entry is this small on purpose: the page paints from the HTML (the service's prerendered markup,
 * or the brand mark) and the stylesheet alone, and the dashboard's code is fetched once that first
 * paint is on screen, so on a slow link nothing that paints shares the line with script. The files
 * of this address's page, which the service names on the root (`data-preload`, server/src/static.ts),
 * are fetched together with the app's own, in parallel rather than one after the other.
 */
const container = document.getElementById('root')!
// a tap on the painted page before its code has run is answered once it has (early-clicks.ts)
const releaseClicks = container.dataset.prerendered ? holdEarlyClicks(container) : () => {}
// the browser's table of locales, built off the main thread while the page paints and its code arrives;
// only a head start: a browser that refuses the worker builds it on its first formatter as before
try {
  new Worker(new URL('./intl-warmup.worker.ts', import.meta.url), { type: 'module' })
} catch {
  /* no worker: nothing lost but the head start */
}

await new Promise<void>((painted) => {
  // a tab opened in the background paints nothing (and runs no animation frame) until it is shown
  if (document.visibilityState === 'hidden') return painted()
  requestAnimationFrame(() => setTimeout(painted, 0))
})
// The app first (its own files are the first it needs), then this page's files one at a time, in tasks
// of their own: the browser takes a few milliseconds to take in each module preload (more on a slow
// phone), and thirteen inserted at once made one long task.
const app = import('./start')
const yieldToBrowser = () => new Promise((resolve) => setTimeout(resolve, 0))
for (const href of container.dataset.preload?.split(' ') ?? []) {
  if (!href.startsWith('/')) continue
  const link = document.createElement('link')
  link.rel = 'modulepreload'
  link.crossOrigin = ''
  link.href = href
  document.head.append(link)
  await yieldToBrowser()
}
const { start } = await app
await start(container, () => {
  releaseClicks()
  // the page is the app's now (its tests wait for this before ticking a painted checkbox)
  container.dataset.interactive = ''
})
