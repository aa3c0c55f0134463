import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { benchPreview } from './preview.ts'

/** `npm run bench:server`: the preview bench (S1), then the export bench when server/bench/export.ts exists (S2). */
const preview = await benchPreview()
let failed = preview.p95 > 50

const exportBench = fileURLToPath(new URL('./export.ts', import.meta.url))
if (existsSync(exportBench)) {
  const mod = (await import(exportBench)) as { benchExport?: () => Promise<unknown> }
  if (typeof mod.benchExport === 'function') {
    const result = (await mod.benchExport()) as { ok?: boolean } | undefined
    if (result && result.ok === false) failed = true
  }
}
if (failed) process.exitCode = 1
