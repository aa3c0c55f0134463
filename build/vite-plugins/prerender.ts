import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'
import react from '@vitejs/plugin-react'
import { build, type AliasOptions, type Plugin } from 'vite'
import { routeFiles, type Manifest } from './route-files.ts'

/** What the server build's entry computes (src/boot/prerender.tsx): the pages' markup and each route's source files. */
interface Prerendered {
  pages: Record<string, Record<string, string>>
  sources: Record<string, string[]>
}

/**
 * After the browser build: makes a server build of `entry` (src/boot/prerender.tsx), runs it in Node
 * and writes, beside the build's manifest:
 * - `.vite/prerender.json`: the markup of each prerendered page, which the service puts into the
 *   page's HTML (server/src/static.ts): the page paints from the HTML, then hydrates;
 * - `.vite/routes.json`: for each route pattern of the router, the built files its page needs beyond
 *   what the entry and the app fetch themselves, which the service names on the page's root
 *   (`data-preload`) for the entry to fetch beside the app's own code.
 */
export function prerender({ entry, alias }: { entry: string; alias: AliasOptions }): Plugin {
  let root = ''
  let outDir = ''
  let manifestFile = ''
  let mode = 'production'
  return {
    name: 'leads:prerender',
    apply: (_config, env) => env.command === 'build' && !env.isSsrBuild,
    configResolved(config) {
      root = config.root
      outDir = path.resolve(config.root, config.build.outDir)
      mode = config.mode
      if (!config.build.manifest) throw new Error('leads:prerender: the route table is made from the build manifest (build.manifest)')
      manifestFile = path.join(outDir, typeof config.build.manifest === 'string' ? config.build.manifest : '.vite/manifest.json')
    },
    async closeBundle(error) {
      if (error) return
      // inside the project so the server build's imports resolve from node_modules; one per build, so
      // two builds at once (a test's private build beside dist/) do not overwrite each other's
      const serverOut = path.join(root, 'node_modules/.cache', `prerender-${process.pid}-${Date.now()}`)
      await build({
        configFile: false,
        root,
        mode,
        logLevel: 'warn',
        plugins: [react()],
        resolve: { alias },
        build: { ssr: entry, outDir: serverOut, emptyOutDir: true, minify: false, target: 'node20' },
      })
      try {
        const { pages, sources } = await runInWorker(path.join(serverOut, `${path.basename(entry, path.extname(entry))}.js`))
        const manifest = JSON.parse(await readFile(manifestFile, 'utf8')) as Manifest
        await mkdir(path.join(outDir, '.vite'), { recursive: true })
        await writeFile(path.join(outDir, '.vite', 'prerender.json'), JSON.stringify(pages))
        await writeFile(path.join(outDir, '.vite', 'routes.json'), JSON.stringify(routeFiles(manifest, sources)))
      } finally {
        await rm(serverOut, { recursive: true, force: true })
      }
    },
  }
}

/**
 * Runs the server build's `renderAll()` and `routeSources()` in a worker thread with a time limit: a
 * page that never finishes rendering (a render loop) fails the build with a message instead of
 * hanging it.
 */
function runInWorker(entry: string, timeoutMs = 60_000): Promise<Prerendered> {
  const source = `
    import { parentPort, workerData } from 'node:worker_threads'
    const { renderAll, routeSources } = await import(workerData.entry)
    parentPort.postMessage({ pages: await renderAll(), sources: await routeSources() })
  `
  const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(source)}`), {
    workerData: { entry: pathToFileURL(entry).href },
  })
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void worker.terminate()
      reject(new Error(`prerender: the pages did not render within ${timeoutMs / 1000} s (a render that never ends?)`))
    }, timeoutMs)
    worker.once('message', (result: Prerendered) => {
      clearTimeout(timer)
      void worker.terminate()
      resolve(result)
    })
    worker.once('error', (e) => {
      clearTimeout(timer)
      reject(e)
    })
  })
}
