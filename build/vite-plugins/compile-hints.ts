import { existsSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { brotliCompressSync, gzipSync } from 'node:zlib'
import type { Plugin } from 'vite'
import { BROTLI, GZIP } from './compressed-twins.ts'

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
const EAGER_CHUNKS = new Set(['framework', 'app', 'start', 'query', 'auth-layout'])
const wantsCompileHint = (chunk: { name: string; facadeModuleId: string | null }): boolean =>
  EAGER_CHUNKS.has(chunk.name) || /[\\/]src[\\/]app[\\/]routes[\\/][^/\\]+\.tsx$/.test(chunk.facadeModuleId ?? '')

export function compileHints(): Plugin {
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
