import { lazy, Suspense, useId, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useCapability } from '@/api/capabilities/get-capabilities'
import { Button } from '@/components/ui/button'
import { Spinner } from '@/components/ui/spinner'
import type { SearchFilters } from '@/domain/search-filters'
import { loadPageNamespaces } from '@/lib/i18n'

// the toggle speaks the map's words: this module is ready once they are (English, every language's fallback;
// the language in use brought its own)
await loadPageNamespaces(['map'])

// MapLibre, Terra Draw and H3: fetched when the map is first opened, never with the page
const MapPanel = lazy(() => import('./map-panel'))

/**
 * "Show the map" under the search's filters, where the service has extension `geo` (nothing while the
 * capabilities load, decisions.md); the map opens below (full screen on a phone).
 */
export function TerritoryMap({
  filters,
  onChange,
}: {
  filters: SearchFilters
  onChange: (change: (f: SearchFilters) => SearchFilters) => void
}) {
  const { t } = useTranslation('map')
  const geo = useCapability('geo')
  const [open, setOpen] = useState(false)
  const panelId = useId()
  const toggle = useRef<HTMLButtonElement>(null)
  if (geo !== true) return null
  const close = () => {
    setOpen(false)
    requestAnimationFrame(() => toggle.current?.focus())
  }
  return (
    <div>
      <Button
        ref={toggle}
        variant="secondary"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => (open ? close() : setOpen(true))}
      >
        {open ? t('hide') : t('show')}
      </Button>
      <div id={panelId}>
        {open && (
          <Suspense
            fallback={
              <p role="status" className="mt-4 flex items-center gap-2 text-sm">
                <Spinner className="size-5" />
                {t('loading')}
              </p>
            }
          >
            <MapPanel filters={filters} onChange={onChange} onClose={close} />
          </Suspense>
        )}
      </div>
    </div>
  )
}
