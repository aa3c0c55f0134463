import {
  AttributionControl,
  LngLatBounds,
  Map as MapLibreMap,
  Marker,
  NavigationControl,
  setWorkerUrl,
  type GeoJSONSource,
  type MapLayerMouseEvent,
} from 'maplibre-gl'
import workerUrl from 'maplibre-gl/dist/maplibre-gl-worker.mjs?worker&url'
import {
  TerraDraw,
  TerraDrawCircleMode,
  TerraDrawPolygonMode,
  TerraDrawRectangleMode,
  TerraDrawSelectMode,
  type GeoJSONStoreFeatures,
} from 'terra-draw'
import { TerraDrawMapLibreGLAdapter } from 'terra-draw-maplibre-gl-adapter'
import { useEffect, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { CellsArea, Cell } from '@/api/search/get-cells'
import type { MapLabel } from '@/api/map/get-labels'
import type { Territory } from '@/domain/search-filters'
import { formatNumber } from '@/lib/format'
import { cellsGeoJson, circleOf, circleRing, ringOf, SCALE } from '../cells'
import './map.css'

// the worker is a file of the build (MapLibre would look for it beside its own module, which the bundle renamed)
setWorkerUrl(workerUrl)

/**
 * A real tile style for production (OpenFreeMap, Protomaps, MapTiler…), chosen at build time; without
 * it, the service's offline basemap (server/src/modules/map). Read here rather than in config/env.ts,
 * which is on every page's first load.
 */
const EXTERNAL_STYLE: string | undefined = import.meta.env.VITE_MAP_STYLE_URL || undefined

export type DrawMode = 'polygon' | 'rectangle' | 'circle' | 'select' | 'static'

interface Props {
  cells: Cell[]
  breaks: number[]
  territory: Territory | null
  labels: MapLabel[]
  dark: boolean
  rtl: boolean
  mode: DrawMode
  /** The box and zoom in view, after each move (debounced by the caller's query). */
  onArea: (area: CellsArea) => void
  onTerritory: (t: Territory) => void
  /** A drawing finished or was cancelled: the toolbar goes back to no tool (or stays on Edit). */
  onModeDone: () => void
  /** WebGL is missing or failed: the caller shows the table alone. */
  onUnavailable: () => void
}

// Terra Draw takes only ids of its own strategy's form (a UUID's 36 characters): another is no feature to it
const TERRITORY_ID = '00000000-0000-4000-8000-000000000026'

/** The territory as a Terra Draw feature: a circle as the ring it draws, so it can be shown and edited like a drawn one. */
function territoryFeature(t: Territory): GeoJSONStoreFeatures {
  const ring = t.kind === 'polygon' ? t.rings[0]! : circleRing(t)
  return {
    id: TERRITORY_ID,
    type: 'Feature',
    properties: t.kind === 'polygon' ? { mode: 'polygon' } : { mode: 'circle', radiusKilometers: t.radiusKm },
    geometry: { type: 'Polygon', coordinates: [[...ring, ring[0]!]] },
  }
}

/** What a finished drawing or edit means: a circle is the service's `near`, any other shape its `within`. */
function territoryOf(f: GeoJSONStoreFeatures): Territory | null {
  if (f.geometry.type !== 'Polygon') return null
  const outer = f.geometry.coordinates[0] ?? []
  if (f.properties.mode === 'circle') {
    const r = f.properties.radiusKilometers
    return circleOf(outer, typeof r === 'number' ? r : undefined)
  }
  const ring = ringOf(outer)
  return ring.length >= 3 ? { kind: 'polygon', rings: [ring] } : null
}

function boxOf(map: MapLibreMap): CellsArea {
  const b = map.getBounds()
  const clamp = (v: number, lim: number) => Math.max(-lim, Math.min(lim, v)).toFixed(4)
  return {
    bbox: [clamp(b.getWest(), 180), clamp(b.getSouth(), 90), clamp(b.getEast(), 180), clamp(b.getNorth(), 90)].join(','),
    zoom: Math.max(0, Math.min(22, Math.round(map.getZoom()))),
  }
}

/** MapLibre with the search's cells, the territory and its drawing tools (Terra Draw), and place labels. */
export function MapCanvas({ cells, breaks, territory, labels, dark, rtl, mode, onArea, onTerritory, onModeDone, onUnavailable }: Props) {
  const { t, i18n } = useTranslation('map')
  const container = useRef<HTMLDivElement>(null)
  const mapRef = useRef<MapLibreMap | null>(null)
  const drawRef = useRef<TerraDraw | null>(null)
  const [ready, setReady] = useState(false)
  const [tip, setTip] = useState<{ x: number; y: number; count: number; owned: number } | null>(null)
  // the latest callbacks for listeners made once
  const handlers = useRef({ onArea, onTerritory, onModeDone })
  const modeRef = useRef(mode)
  useEffect(() => {
    handlers.current = { onArea, onTerritory, onModeDone }
    modeRef.current = mode
  })

  // the map and the drawing tools: made once per theme and direction (the style and the controls' side follow them)
  useEffect(() => {
    if (!container.current) return
    let map: MapLibreMap
    try {
      map = new MapLibreMap({
        container: container.current,
        style: EXTERNAL_STYLE ?? `/api/map/style.json?theme=${dark ? 'dark' : 'light'}`,
        center: [10, 50],
        zoom: 3,
        attributionControl: false,
        // north stays up: the cells, the labels and a drawn rectangle read as on any map
        dragRotate: false,
        pitchWithRotate: false,
      })
    } catch {
      onUnavailable()
      return
    }
    mapRef.current = map
    map.touchZoomRotate.disableRotation()
    map.keyboard.disableRotation()
    const side = rtl ? 'left' : 'right'
    map.addControl(new AttributionControl({ compact: false, customAttribution: t('attribution') }), `bottom-${side}`)
    map.addControl(new NavigationControl({ showCompass: false }), `top-${side}`)
    map.on('error', (e) => {
      // a WebGL context that cannot be made arrives here rather than as an exception
      if (/webgl/i.test(String(e.error?.message))) onUnavailable()
    })

    const report = () => handlers.current.onArea(boxOf(map))
    map.on('moveend', report)
    map.on('load', () => {
      map.addSource('cells', { type: 'geojson', data: { type: 'FeatureCollection', features: [] } })
      const step = ['get', 'step']
      map.addLayer({
        id: 'cells-fill',
        type: 'fill',
        source: 'cells',
        paint: {
          'fill-color': ['match', step, ...SCALE.slice(0, -1).flatMap((c, i) => [i, c]), SCALE.at(-1)!] as never,
          'fill-opacity': 0.72,
          // the cells' borders: the fill's antialiasing pass draws them as 1 px GL lines anyway, where a line layer made
          // triangles of every edge of 5,000 cells, and SwiftShader spent about 40 % of a frame on them (docs/benchmarks.md)
          'fill-outline-color': dark ? 'rgba(15, 23, 42, 0.6)' : 'rgba(255, 255, 255, 0.6)',
        },
      })
      // the territory as the address holds it, drawn by the map itself (Terra Draw holds it only while it is edited)
      map.addSource('territory', { type: 'geojson', data: { type: 'FeatureCollection', features: [] } })
      map.addLayer({ id: 'territory-fill', type: 'fill', source: 'territory', paint: { 'fill-color': '#4f46e5', 'fill-opacity': 0.08 } })
      map.addLayer({
        id: 'territory-line',
        type: 'line',
        source: 'territory',
        paint: { 'line-color': dark ? '#a5b4fc' : '#4338ca', 'line-width': 2.5, 'line-dasharray': [2, 1] },
      })
      const draw = new TerraDraw({
        adapter: new TerraDrawMapLibreGLAdapter({ map }),
        modes: [
          new TerraDrawPolygonMode(),
          new TerraDrawRectangleMode(),
          new TerraDrawCircleMode(),
          new TerraDrawSelectMode({
            flags: {
              polygon: { feature: { draggable: true, coordinates: { draggable: true, midpoints: true, deletable: true } } },
              rectangle: { feature: { draggable: true, coordinates: { draggable: true } } },
              circle: { feature: { draggable: true, coordinates: { resizable: 'center-fixed' } } },
            },
          }),
        ],
      })
      // started only while a tool is chosen (below): at rest its five layers and its pointer handling would cost
      // every frame of a pan (docs/benchmarks.md)
      draw.on('finish', (id, context) => {
        const f = draw.getSnapshotFeature(id)
        const next = f && territoryOf(f)
        if (next) handlers.current.onTerritory(next)
        // a finished shape is the territory now, drawn by the map's own layer: the tool is put down
        if (context.action === 'draw') handlers.current.onModeDone()
      })
      drawRef.current = draw
      setReady(true)
      report()
    })

    const hover = (e: MapLayerMouseEvent) => {
      // while drawing, the cells are not what the pointer is about
      if (modeRef.current !== 'static' && modeRef.current !== 'select') return setTip(null)
      const f = e.features?.[0]
      if (!f) return setTip(null)
      setTip({ x: e.point.x, y: e.point.y, count: Number(f.properties.count), owned: Number(f.properties.owned) })
    }
    map.on('mousemove', 'cells-fill', hover)
    map.on('click', 'cells-fill', hover) // a tap on a phone
    map.on('mouseleave', 'cells-fill', () => setTip(null))
    map.on('movestart', () => setTip(null))

    return () => {
      drawRef.current?.stop()
      drawRef.current = null
      mapRef.current = null
      setReady(false)
      map.remove()
    }
    // t and onUnavailable: the attribution's words are read when the map is made; a language change makes a new one below
  }, [dark, rtl, i18n.language]) // eslint-disable-line react-hooks/exhaustive-deps

  // the cells of the box in view; the first ones the map is fitted to (the search's own ground, or the territory's)
  const fitted = useRef(false)
  useEffect(() => {
    const map = mapRef.current
    if (!ready || !map) return
    const data = cellsGeoJson(cells, breaks)
    ;(map.getSource('cells') as GeoJSONSource | undefined)?.setData(data)
    if (fitted.current || !cells.length) return
    fitted.current = true
    const ring = territory ? (territory.kind === 'polygon' ? territory.rings[0]! : circleRing(territory)) : null
    const points = ring ?? data.features.flatMap((f) => f.geometry.coordinates[0]!)
    const bounds = new LngLatBounds()
    for (const p of points) bounds.extend(p as [number, number])
    map.fitBounds(bounds, { padding: 24, maxZoom: 11, duration: 0 })
  }, [ready, cells, breaks, territory])

  // the territory, from the address, on the map's own layer
  useEffect(() => {
    const map = mapRef.current
    if (!ready || !map) return
    const feature = territory ? territoryFeature(territory) : null
    ;(map.getSource('territory') as GeoJSONSource | undefined)?.setData({
      type: 'FeatureCollection',
      features: feature ? [{ type: 'Feature', properties: {}, geometry: feature.geometry }] : [],
    })
    // without a territory its layers are hidden: MapLibre skips a hidden layer, and with it the stencil masks
    // of its source's tiles
    for (const id of ['territory-fill', 'territory-line']) map.setLayoutProperty(id, 'visibility', feature ? 'visible' : 'none')
  }, [ready, territory])

  // the tool chosen in the toolbar; Edit hands the territory to the drawing tools, any other tool starts afresh
  useEffect(() => {
    const draw = drawRef.current
    if (!ready || !draw) return
    if (mode === 'static') {
      // no tool: Terra Draw stops, its mode first (a drawing mode gives the double-click zoom back when it stops)
      if (draw.enabled) {
        draw.setMode('static')
        draw.stop()
      }
      return
    }
    if (!draw.enabled) draw.start()
    draw.clear()
    // a territory Terra Draw finds invalid (a pasted ring that crosses itself) is left as it is, not edited
    const editable = mode === 'select' && territory !== null && draw.addFeatures([territoryFeature(territory)])[0]?.valid === true
    draw.setMode(mode)
    if (editable) draw.selectFeature(TERRITORY_ID)
    // the territory is read when the tool is chosen: an edit's own changes must not start it again
  }, [ready, mode]) // eslint-disable-line react-hooks/exhaustive-deps

  // place names as HTML markers (no glyphs offline): states from afar, the biggest cities in view closer in
  useEffect(() => {
    const map = mapRef.current
    if (!ready || !map || EXTERNAL_STYLE) return
    let markers: Marker[] = []
    const place = () => {
      for (const m of markers) m.remove()
      const zoom = map.getZoom()
      const bounds = map.getBounds()
      // the biggest places first (the service's order), each only where it does not cover one already placed
      const placed: { x: number; y: number; w: number }[] = []
      const shown = labels
        .filter((l) => (zoom < 6 ? l.level === 1 : l.level === 3) && bounds.contains([l.longitude, l.latitude]))
        .filter((l) => {
          const { x, y } = map.project([l.longitude, l.latitude])
          const w = l.name.length * 7
          if (placed.some((p) => Math.abs(p.x - x) < (p.w + w) / 2 + 8 && Math.abs(p.y - y) < 20)) return false
          placed.push({ x, y, w })
          return placed.length <= 30
        })
      markers = shown.map((l) => {
        const el = document.createElement('span')
        el.className = 'map-label'
        el.dir = 'auto'
        el.textContent = l.name
        el.setAttribute('aria-hidden', 'true') // the table names the areas; the labels are the picture's
        return new Marker({ element: el }).setLngLat([l.longitude, l.latitude]).addTo(map)
      })
    }
    place()
    map.on('moveend', place)
    return () => {
      map.off('moveend', place)
      for (const m of markers) m.remove()
    }
  }, [ready, labels])

  // Escape leaves a drawing tool (Terra Draw cancels the shape being drawn itself)
  useEffect(() => {
    if (mode === 'static') return
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && handlers.current.onModeDone()
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [mode])

  const lng = i18n.language
  return (
    // the map itself is not mirrored in a right-to-left language: north is up and east is right everywhere
    <div className="relative h-full w-full" dir="ltr">
      <div ref={container} className="h-full w-full" role="region" aria-label={t('mapLabel')} data-testid="map" />
      {tip && (
        <div
          role="status"
          className="pointer-events-none absolute z-10 rounded-md bg-slate-900/90 px-2 py-1 text-xs text-white shadow dark:bg-white/90 dark:text-slate-900"
          style={{ left: tip.x + 12, top: tip.y + 12 }}
          dir={i18n.dir(lng)}
        >
          {t('cellTip', { count: tip.count, formatted: formatNumber(lng, tip.count), owned: formatNumber(lng, tip.owned) })}
        </div>
      )}
    </div>
  )
}
