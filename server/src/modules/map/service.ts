import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { gzipSync } from 'node:zlib'
import { feature } from 'topojson-client'

/**
 * The dashboard's basemap when it has no tile service (issue 26): country borders from Natural Earth
 * (the `world-atlas` package's 1:110m TopoJSON, turned into GeoJSON once), drawn by a MapLibre style
 * that needs nothing from the internet (no tiles, no glyphs: place labels are the dashboard's own
 * HTML markers, from the service's place names).
 */

/** A document made once and kept: its text and that text gzip-compressed, and an ETag for both. */
export interface Document {
  text: string
  gzipped: Buffer
  etag: string
}

const document = (text: string, version: string): Document => ({ text, gzipped: gzipSync(text, { level: 9 }), etag: `"${version}"` })

const require = createRequire(import.meta.url)
const ATLAS_VERSION = (require('world-atlas/package.json') as { version: string }).version

let countries: Promise<Document> | undefined

/** Every country's outline as a GeoJSON FeatureCollection (`name` in English, as Natural Earth spells it). */
export function countriesGeoJson(): Promise<Document> {
  countries ??= readFile(require.resolve('world-atlas/countries-110m.json'), 'utf8').then((text) => {
    const topology = JSON.parse(text) as Parameters<typeof feature>[0]
    return document(JSON.stringify(feature(topology, topology.objects.countries!)), `countries-110m-${ATLAS_VERSION}`)
  })
  countries.catch(() => (countries = undefined))
  return countries
}

export type Theme = 'light' | 'dark'

/** The dashboard's colours (Tailwind's slate and sky), so that the map sits in the page in both themes. */
const COLOURS: Record<Theme, { water: string; land: string; border: string }> = {
  light: { water: '#e0f2fe', land: '#f8fafc', border: '#94a3b8' },
  dark: { water: '#0b1220', land: '#1e293b', border: '#64748b' },
}

export const ATTRIBUTION = '© Natural Earth'

/** A MapLibre style (version 8): water, land and borders, nothing fetched but countries.geojson from this service. */
function style(theme: Theme) {
  const c = COLOURS[theme]
  return {
    version: 8,
    name: `Leads basemap (${theme})`,
    sources: {
      countries: { type: 'geojson', data: '/api/map/countries.geojson', attribution: ATTRIBUTION },
    },
    layers: [
      { id: 'water', type: 'background', paint: { 'background-color': c.water } },
      { id: 'land', type: 'fill', source: 'countries', paint: { 'fill-color': c.land } },
      { id: 'borders', type: 'line', source: 'countries', paint: { 'line-color': c.border, 'line-width': 0.8 } },
    ],
  }
}

const styles = new Map<Theme, Document>()

export function styleDocument(theme: Theme): Document {
  let doc = styles.get(theme)
  if (!doc) {
    doc = document(JSON.stringify(style(theme)), `style-${theme}-${ATLAS_VERSION}`)
    styles.set(theme, doc)
  }
  return doc
}
