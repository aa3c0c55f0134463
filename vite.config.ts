/// <reference types="vitest/config" />
import { defineConfig } from 'vite'
import react from '@vitejs/plugin-react'
import tailwindcss from '@tailwindcss/vite'
import { availableParallelism } from 'node:os'
import { compileHints } from './build/vite-plugins/compile-hints.ts'
import { compressedTwins } from './build/vite-plugins/compressed-twins.ts'
import { localeFilesPlugin } from './build/vite-plugins/locale-files.ts'
import { lowPriorityScripts } from './build/vite-plugins/low-priority-scripts.ts'
import { prerender } from './build/vite-plugins/prerender.ts'

const apiTarget = process.env.VITE_DEV_API_TARGET ?? 'http://127.0.0.1:8000'
const alias = { '@': new URL('./src', import.meta.url).pathname }

export default defineConfig({
  plugins: [
    react(),
    tailwindcss(),
    prerender({ entry: 'src/boot/prerender.tsx', alias }),
    lowPriorityScripts(),
    compileHints(),
    // before the twins: the locale files it writes get theirs
    localeFilesPlugin(),
    compressedTwins(),
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
            // a chunk of its own, so that the app's chunk as a whole waits a task for it (src/boot/yield-point.ts)
            { name: 'yield-point', test: /[\\/]src[\\/]boot[\\/]yield-point/, priority: 30 },
            {
              name: 'framework',
              test: /[\\/]node_modules[\\/](react|react-dom|scheduler|react-router|i18next|react-i18next|use-sync-external-store)[\\/]/,
              priority: 20,
            },
            {
              // the query library in one chunk: split by use, it came as six, each a request with its own
              // imports (the signed-out pages load none of it)
              name: 'query',
              test: /[\\/]node_modules[\\/]@tanstack[\\/](query-core|react-query)[\\/]/,
              priority: 15,
            },
            {
              // small modules that only the signed-in pages share (the shell, search): one chunk instead of
              // ten of 0.1-0.4 KB, each paying its own compression and import glue (issue 26 kept the budget)
              name: 'signed-in',
              test: /[\\/]src[\\/](lib[\\/](use-after-first-load|use-debounced-value)|api[\\/](search|account|capabilities)[\\/]keys|components[\\/]ui[\\/]card)\./,
              priority: 12,
            },
            {
              // the app's own start-up code that the signed-out pages and the shell share
              name: 'app',
              test: /[\\/]src[\\/](lib[\\/](i18n|session|api-client|page-hints|use-hydrated|error-message|error-codes|use-document-title|format)|config[\\/]|components[\\/](ui[\\/](button|spinner|alert|field)|page-skeleton|throttle-notice)|boot[\\/]start|app[\\/](app|router|layout[\\/](route-error|language-switcher)))/,
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
