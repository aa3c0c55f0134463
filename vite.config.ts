/// <reference types="vitest/config" />
import { build, defineConfig, type Plugin } from 'vite'
import react from '@vitejs/plugin-react'
import tailwindcss from '@tailwindcss/vite'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'
import { existsSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib'
import { compression, defineAlgorithm } from 'vite-plugin-compression2'

const apiTarget = process.env.VITE_DEV_API_TARGET ?? 'http://127.0.0.1:8000'
const alias = { '@': new URL('./src', import.meta.url).pathname }

/**
 * After the browser build: renders the pages of src/app/prerender.tsx in Node (a server build of that
 * entry) and writes their markup to <outDir>/.vite/prerender.json, which the service puts into each
 * page's HTML (server/src/static.ts): the page paints from the HTML, then hydrates.
 */
/**
 * The page paints from the HTML (its prerendered markup and the stylesheet); scripts only make it
 * interactive. So the entry and its preloads ask for a low fetch priority: on a slow link the
 * stylesheet comes first, and nothing that paints waits for a script.
 */
function lowPriorityScripts(): Plugin {
  return {
    name: 'leads:low-priority-scripts',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler: (html) => html.replace(/<(script type="module"|link rel="modulepreload")(?![^>]*fetchpriority)/g, '<$1 fetchpriority="low"'),
    },
  }
}

/**
 * Runs the server build's `renderAll()` in a worker thread with a time limit: a page that never
 * finishes rendering (a render loop) fails the build with a message instead of hanging it.
 */
function renderInWorker(entry: string, timeoutMs = 60_000): Promise<Record<string, Record<string, string>>> {
  const source = `
    import { parentPort, workerData } from 'node:worker_threads'
    const { renderAll } = await import(workerData.entry)
    parentPort.postMessage(await renderAll())
  `
  const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(source)}`), {
    workerData: { entry: pathToFileURL(entry).href },
  })
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void worker.terminate()
      reject(new Error(`prerender: the pages did not render within ${timeoutMs / 1000} s (a render that never ends?)`))
    }, timeoutMs)
    worker.once('message', (pages: Record<string, Record<string, string>>) => {
      clearTimeout(timer)
      void worker.terminate()
      resolve(pages)
    })
    worker.once('error', (e) => {
      clearTimeout(timer)
      reject(e)
    })
  })
}

function prerender(): Plugin {
  let root = ''
  let outDir = ''
  let mode = 'production'
  return {
    name: 'leads:prerender',
    apply: (_config, env) => env.command === 'build' && !env.isSsrBuild,
    configResolved(config) {
      root = config.root
      outDir = path.resolve(config.root, config.build.outDir)
      mode = config.mode
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
        build: { ssr: 'src/app/prerender.tsx', outDir: serverOut, emptyOutDir: true, minify: false, target: 'node20' },
      })
      try {
        const pages = await renderInWorker(path.join(serverOut, 'prerender.js'))
        await mkdir(path.join(outDir, '.vite'), { recursive: true })
        await writeFile(path.join(outDir, '.vite', 'prerender.json'), JSON.stringify(pages))
      } finally {
        await rm(serverOut, { recursive: true, force: true })
      }
    },
  }
}

/**
 * V8's explicit compile hint (Chrome 136+): a file that begins with `//# allFunctionsCalledOnLoad` has
 * every function compiled on a background thread while it streams in, instead of each one on the
 * main thread the first time it is called. On the signed-in search page at a 4x slower CPU, the main
 * thread's compiling fell from about 450 ms to about 110 ms (docs/benchmarks.md). Only the chunks
 * whose code runs nearly whole as a page starts get it: the framework, the app's start-up code, the
 * query library, the signed-out pages' layout and each page's own module; a library of which a page
 * calls a few functions (zod, the form library, the dialogs) stays compiled lazily.
 *
 * The comment must open the file, so it is written last: Vite puts its preload map at the top of a
 * chunk after every plugin's render step, and the compressed twins are then written again.
 */
const COMPILE_HINT = '//# allFunctionsCalledOnLoad\n'
/** The compressed twins' settings, for the compression plugin and for the hinted chunks written again. */
const BROTLI = { params: { [zlib.BROTLI_PARAM_QUALITY]: zlib.BROTLI_MAX_QUALITY } }
const GZIP = { level: 9 }
const EAGER_CHUNKS = new Set(['framework', 'app', 'start', 'query', 'auth-layout'])
const wantsCompileHint = (chunk: { name: string; facadeModuleId: string | null }): boolean =>
  EAGER_CHUNKS.has(chunk.name) || /[\\/]src[\\/]app[\\/]routes[\\/][^/\\]+\.tsx$/.test(chunk.facadeModuleId ?? '')

function compileHints(): Plugin {
  return {
    name: 'leads:compile-hints',
    apply: 'build',
    augmentChunkHash: (chunk) => (wantsCompileHint(chunk) ? COMPILE_HINT : undefined),
    async writeBundle(options, bundle) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk' || !wantsCompileHint(chunk) || chunk.code.startsWith(COMPILE_HINT)) continue
        const file = path.join(options.dir!, chunk.fileName)
        const code = Buffer.from(COMPILE_HINT + chunk.code)
        await writeFile(file, code)
        if (existsSync(`${file}.br`)) await writeFile(`${file}.br`, brotliCompressSync(code, BROTLI))
        if (existsSync(`${file}.gz`)) await writeFile(`${file}.gz`, gzipSync(code, GZIP))
      }
    },
  }
}

export default defineConfig({
  plugins: [
    react(),
    tailwindcss(),
    prerender(),
    lowPriorityScripts(),
    compileHints(),
    // brotli (maximum quality) and gzip twins of every text asset, sent by the service by
    // Accept-Encoding (server/src/static.ts); nothing is compressed at request time
    compression({
      include: /\.(js|css|svg|json|txt|webmanifest)$/,
      threshold: 1024,
      skipIfLargerOrEqual: true,
      algorithms: [defineAlgorithm('brotliCompress', BROTLI), defineAlgorithm('gzip', GZIP)],
    }),
  ],
  resolve: { alias },
  build: {
    manifest: true,
    sourcemap: false,
    target: 'es2022',
    // every browser the target admits supports modulepreload: no polyfill watching the document at start
    modulePreload: { polyfill: false },
    rolldownOptions: {
      output: {
        // What every page runs first, in one chunk instead of a dozen: fewer requests on a slow link and
        // less glue between chunks (the first-load budgets are within a few KB)
        codeSplitting: {
          groups: [
            // the entry's only import: it must not pull the framework into the first paint
            { name: 'preload-helper', test: /vite[\\/]preload-helper/, priority: 30 },
            // a chunk of its own, so that the app's chunk as a whole waits a task for it (yield-point.ts)
            { name: 'yield-point', test: /[\\/]src[\\/]app[\\/]yield-point/, priority: 30 },
            {
              name: 'framework',
              test: /[\\/]node_modules[\\/](react|react-dom|scheduler|react-router|i18next|react-i18next|use-sync-external-store)[\\/]/,
              priority: 20,
            },
            {
              // the app's own start-up code that the signed-out pages and the shell share
              name: 'app',
              test: /[\\/]src[\\/](lib[\\/](i18n|session|api-client|page-hints|use-hydrated|error-message|error-codes|use-document-title|format)|config[\\/]|components[\\/](ui[\\/](button|spinner|alert|field)|page-skeleton|throttle-notice)|app[\\/](start|app|router|layout[\\/](route-error|language-switcher)))/,
              priority: 10,
            },
          ],
        },
      },
    },
  },
  server: {
    port: 5173,
    proxy: { '/api': { target: apiTarget, changeOrigin: false } },
  },
  test: {
    // Vitest's default is one worker per core but one (half the cores in watch mode), so a 2-core
    // machine (CI's) ran every file one after the other; the server's files mostly wait (a database's
    // start, a child process, a socket): two workers took 197 s where one took 284.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        extends: true,
        test: {
          name: 'dashboard',
          environment: 'jsdom',
          include: ['src/**/*.test.{ts,tsx}'],
          setupFiles: ['src/testing/setup.ts'],
          // a limit, not a gate: a page test that renders the search page with its lazy parts takes
          // 1–2 s alone and was seen at 5.7 s beside a server suite on 2 cores (the default is 5 s)
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'server',
          environment: 'node',
          include: ['server/test/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          pool: 'forks',
          globalSetup: ['server/test/global-setup.ts'],
        },
      },
    ],
  },
})
