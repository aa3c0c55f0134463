import { useQuery } from '@tanstack/react-query'
import { useCallback, useEffect, useId, useMemo, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { mapLabelsOptions } from '@/api/map/get-labels'
import type { CellsArea } from '@/api/search/get-cells'
import { previewOptions } from '@/api/search/get-preview'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { previewQuery, type SearchFilters, type Territory } from '@/domain/search-filters'
import { formatNumber } from '@/lib/format'
import { classBreaks } from '../cells'
import { useCells } from '../hooks/use-cells'
import { useDarkMode } from '../hooks/use-dark-mode'
import { AreasTable } from './areas-table'
import { CellsLegend } from './cells-legend'
import { MapCanvas, type DrawMode } from './map-canvas'
import { RadiusForm } from './radius-form'

/** Without a map (no WebGL), the table covers the whole world at a country's zoom. */
const WORLD: CellsArea = { bbox: '-180,-85,180,85', zoom: 5 }

const TOOLS = [
  ['polygon', 'polygon', 'hintPolygon'],
  ['rectangle', 'rectangle', 'hintRectangle'],
  ['circle', 'circle', 'hintCircle'],
  ['select', 'edit', 'hintEdit'],
] as const

/**
 * The map of the search's leads (extension `geo`): where they are, per cell, and the territory to
 * draw or edit (or a radius around a place, by keyboard), with the same numbers as a table. On a phone
 * it fills the screen, its numbers in a sheet below the map.
 */
export default function MapPanel({
  filters,
  onChange,
  onClose,
}: {
  filters: SearchFilters
  onChange: (change: (f: SearchFilters) => SearchFilters) => void
  onClose: () => void
}) {
  const { t, i18n } = useTranslation('map')
  const lng = i18n.language
  const dark = useDarkMode()
  const rtl = i18n.dir(lng) === 'rtl'
  const [area, setArea] = useState<CellsArea | null>(null)
  const [mode, setMode] = useState<DrawMode>('static')
  const [unavailable, setUnavailable] = useState(false)
  const cellsQuery = useCells(filters, unavailable ? WORLD : area)
  const labels = useQuery(mapLabelsOptions(lng)).data
  const count = useQuery(previewOptions(previewQuery(filters), lng)).data?.totalCount
  const cells = useMemo(() => cellsQuery.data?.cells ?? [], [cellsQuery.data])
  const breaks = useMemo(() => classBreaks(cells.map((c) => c.count)), [cells])
  const max = cells.reduce((m, c) => Math.max(m, c.count), 0)
  const total = cellsQuery.data?.total
  const heading = useRef<HTMLHeadingElement>(null)
  const titleId = useId()
  useEffect(() => heading.current?.focus(), [])

  const setTerritory = useCallback((territory: Territory | null) => onChange((f) => ({ ...f, territory })), [onChange])
  const stopDrawing = useCallback(() => setMode((m) => (m === 'select' ? m : 'static')), [])
  const hint = TOOLS.find(([m]) => m === mode)?.[2]

  return (
    // on a phone, above the page and its header (z-40): the whole screen is the map's
    <div
      role="region"
      aria-labelledby={titleId}
      className="fixed inset-0 z-50 flex flex-col bg-white lg:static lg:z-auto lg:mt-4 lg:rounded-lg lg:border lg:border-slate-200 dark:bg-slate-900 lg:dark:border-slate-700"
      data-testid="map-panel"
    >
      <div className="flex items-center gap-2 border-b border-slate-200 px-2 pt-2 lg:pb-2 dark:border-slate-700">
        <h2 id={titleId} ref={heading} tabIndex={-1} className="me-auto min-w-0 text-base font-semibold">
          {t('title')}
        </h2>
        <Button variant="ghost" className="min-h-9 shrink-0 px-3 lg:hidden" onClick={onClose}>
          {t('close')}
        </Button>
      </div>
      {/* wraps on a phone rather than scrolling sideways: a scrolled row hid "Clear the area" off-screen */}
      <div role="toolbar" aria-label={t('draw')} className="flex flex-wrap gap-1 px-2 py-2">
        {TOOLS.map(([m, label]) => (
          <Button
            key={m}
            variant={mode === m ? 'primary' : 'secondary'}
            className="min-h-9 shrink-0 px-3"
            aria-pressed={mode === m}
            disabled={unavailable || (m === 'select' && !filters.territory)}
            onClick={() => setMode(mode === m ? 'static' : m)}
          >
            {t(label)}
          </Button>
        ))}
        <Button
          variant="ghost"
          className="min-h-9 shrink-0 px-3"
          disabled={!filters.territory}
          onClick={() => {
            setTerritory(null)
            setMode('static')
          }}
        >
          {t('clear')}
        </Button>
      </div>
      <p className="min-h-6 px-2 py-1 text-xs text-slate-600 dark:text-slate-400" aria-live="polite">
        {hint ? t(hint) : ''}
      </p>
      {unavailable ? (
        <Alert tone="warning" className="m-2">
          {t('noWebgl')}
        </Alert>
      ) : (
        <div className="min-h-0 flex-1 lg:h-[28rem] lg:flex-none">
          <MapCanvas
            cells={cells}
            breaks={breaks}
            territory={filters.territory}
            labels={labels ?? []}
            dark={dark}
            rtl={rtl}
            mode={mode}
            onArea={setArea}
            onTerritory={setTerritory}
            onModeDone={stopDrawing}
            onUnavailable={() => setUnavailable(true)}
          />
        </div>
      )}
      {/* on a phone, the sheet under the map: the count, the legend, the radius and the table, scrolled on their own */}
      <div className="max-h-[40dvh] space-y-4 overflow-y-auto border-t border-slate-200 p-3 lg:max-h-none lg:overflow-visible dark:border-slate-700">
        <div className="flex flex-wrap items-baseline justify-between gap-2" aria-live="polite">
          <p className="text-sm font-semibold tabular-nums" data-testid="map-count">
            {count !== undefined && t('matching', { count, formatted: formatNumber(lng, count) })}
          </p>
          <p className="text-xs text-slate-600 tabular-nums dark:text-slate-400" data-testid="map-in-view">
            {total !== undefined && t('inView', { count: total, formatted: formatNumber(lng, total) })}
          </p>
        </div>
        {cellsQuery.isError && (
          <Alert tone="error">
            <div className="flex flex-wrap items-center gap-2">
              {t('cellsError')}
              <Button variant="secondary" onClick={() => void cellsQuery.refetch()}>
                {t('retry')}
              </Button>
            </div>
          </Alert>
        )}
        {cellsQuery.data?.truncated && <p className="text-xs">{t('truncated')}</p>}
        <CellsLegend breaks={breaks} max={max} />
        <RadiusForm filters={filters} places={labels ?? []} onApply={setTerritory} />
        {total !== undefined && (
          <section aria-label={t('tableTitle')}>
            <h3 className="mb-1 text-sm font-medium">{t('tableTitle')}</h3>
            <AreasTable cells={cells} labels={labels ?? []} total={total} />
          </section>
        )}
      </div>
    </div>
  )
}
