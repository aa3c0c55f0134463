/** Gives the main thread back between steps of the start, so none of them is one long task on a slow phone. */
export const yieldToBrowser = () => new Promise<void>((resolve) => setTimeout(resolve, 0))

/**
 * The app chunk waits here for a task: it imports the framework's chunk, then this small chunk (its
 * own manual chunk, vite.config.ts), so the framework is evaluated in one task and the app chunk's
 * modules in the next, not all in one long task of a slow phone's start (figures:
 * docs/benchmarks.md). Only the built chunks are split this way; the dev server defers nothing.
 */
await yieldToBrowser()
