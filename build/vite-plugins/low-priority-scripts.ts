import type { Plugin } from 'vite'

/**
 * The page paints from the HTML (its prerendered markup and the stylesheet); scripts only make it
 * interactive. So the entry and its preloads ask for a low fetch priority: on a slow link the
 * stylesheet comes first, and nothing that paints waits for a script.
 */
export function lowPriorityScripts(): Plugin {
  return {
    name: 'leads:low-priority-scripts',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler: (html) => html.replace(/<(script type="module"|link rel="modulepreload")(?![^>]*fetchpriority)/g, '<$1 fetchpriority="low"'),
    },
  }
}
