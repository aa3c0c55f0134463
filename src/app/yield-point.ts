/**
 * The app's modules pause here for a task of their own (src/app/start.tsx imports this right after
 * the framework): evaluating the framework and the app's start-up modules in one go was the longest
 * task of a signed-in search page's start on a slow phone (≈ 18 ms at full speed, 70 ms at 4×).
 * Modules that evaluate after this one in the bundle run in the next task.
 */
await new Promise<void>((resolve) => setTimeout(resolve, 0))

export {}
