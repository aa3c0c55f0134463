/**
 * Started by main.tsx as the page starts. A page's first Intl formatter (a number, a country's
 * name, a sorted list) makes the browser build its table of locales, once for the whole renderer
 * process: 20 to 80 ms here, several times that on a slow phone. Built here, on a thread of its own,
 * the page's main thread finds it ready, its own first formatter then costs a fraction of a
 * millisecond (measured in Chromium 156; docs/benchmarks.md).
 */
new Intl.NumberFormat('en').format(0)
self.close()
