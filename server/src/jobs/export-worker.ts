import type { Deps } from '../app-env.ts'

/** Background worker that turns queued exports into files. */
export function startExportWorker(deps: Omit<Deps, 'kickExports'>): { kick: () => void; stop: () => Promise<void> } {
  void deps // TODO: not written yet
  return { kick: () => undefined, stop: async () => undefined }
}
