import { addFeatureLocales, loadPageNamespaces } from '@/lib/i18n'

// the other languages' chunks, listed here rather than in lib/i18n.ts's tables, which every page's first load carries
const chunks = import.meta.glob<{ default: Record<string, unknown> }>(['../../../locales/*/map.json', '!../../../locales/en/map.json'])

/** The map's words: English (every language's fallback) and the language in use; a language chosen later brings its own. */
export const loadMapWords = () =>
  Promise.all([addFeatureLocales('map', (lng) => chunks[`../../../locales/${lng}/map.json`]), loadPageNamespaces(['map'])]).then(
    () => undefined,
  )
