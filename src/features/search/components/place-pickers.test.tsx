import { screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse, type JsonBodyType } from 'msw'
import { useState } from 'react'
import { describe, expect, it } from 'vitest'
import { server } from '@/testing/msw-server'
import { renderWithProviders } from '@/testing/render'
import { PlaceSearch, type PlaceLevels } from './place-pickers'

/** Issue 25: places found by their names in other languages (extension `place_names`) and listed best match first. */

const parents = { level1_id: 9, level1_name: 'Bayern' }
const munich = (level: 2 | 3, matched?: string) => ({
  id: level === 3 ? '30' : 20,
  name: 'München',
  level,
  country: 'DE',
  ...parents,
  ...(level === 3 ? { level2_id: 20, level2_name: 'München' } : {}),
  ...(matched ? { matched_name: matched } : {}),
})

let chosen: PlaceLevels = { level1: [], level2: [], level3: [] }
function Picker() {
  const [places, setPlaces] = useState<PlaceLevels>({ level1: [], level2: [], level3: [] })
  return (
    <PlaceSearch
      countries={['DE']}
      places={places}
      onChange={(next) => {
        chosen = next
        setPlaces(next)
      }}
    />
  )
}

function answer(capabilities: boolean, search: (q: string) => JsonBodyType) {
  server.use(
    http.get('*/api/capabilities/', () =>
      capabilities ? HttpResponse.json({ place_names: { version: 1 } }) : HttpResponse.json({ detail: 'Not found.' }, { status: 404 }),
    ),
    http.get('*/api/locations/search/', ({ request }) => HttpResponse.json(search(new URL(request.url).searchParams.get('q') ?? ''))),
  )
}

const optionTexts = async () => (await screen.findAllByRole('option')).map((o) => o.textContent)

describe('place search: names in other languages', () => {
  it('shows the name that matched beside the place’s own, names isolated, and picks the place by its own name', async () => {
    answer(true, () => ({ level1: [], level2: [munich(2, 'Munich')], level3: [munich(3, 'Munich')] }))
    const user = userEvent.setup()
    renderWithProviders(<Picker />)
    await user.type(screen.getByRole('combobox', { name: 'Find a place' }), 'Munich')
    expect(await optionTexts()).toEqual(['München (Munich)County · Bayern', 'München (Munich)City · München · Bayern'])
    const city = screen.getByRole('option', { name: /City/ })
    expect([...city.querySelectorAll('bdi')].map((b) => b.textContent)).toEqual(['München', 'Munich', 'München', 'Bayern'])
    await user.click(city)
    await waitFor(() => expect(chosen.level3).toEqual([{ id: '30', name: 'München (München, Bayern)', country: 'DE' }]))
  })

  it('without the capability (the real service) shows the place’s own name only', async () => {
    answer(false, () => ({ level1: [], level2: [], level3: [munich(3, 'Munich')] }))
    const user = userEvent.setup()
    renderWithProviders(<Picker />)
    await user.type(screen.getByRole('combobox', { name: 'Find a place' }), 'Munich')
    expect(await optionTexts()).toEqual(['MünchenCity · München · Bayern'])
  })
})

describe('place search: one list, best match first', () => {
  it('"Mü" lists München (county and city) before the places that only contain it, whatever their level', async () => {
    const dortmund = (level: 2 | 3) => ({
      id: level === 3 ? '31' : 21,
      name: 'Dortmund',
      level,
      country: 'DE',
      level1_id: 8,
      level1_name: 'Nordrhein-Westfalen',
      ...(level === 3 ? { level2_id: 21, level2_name: 'Dortmund' } : {}),
    })
    const landkreis = { id: 22, name: 'Landkreis München', level: 2, country: 'DE', ...parents }
    answer(true, () => ({ level1: [], level2: [munich(2), landkreis, dortmund(2)], level3: [munich(3), dortmund(3)] }))
    const user = userEvent.setup()
    renderWithProviders(<Picker />)
    await user.type(screen.getByRole('combobox', { name: 'Find a place' }), 'Mü')
    expect(await optionTexts()).toEqual([
      'MünchenCounty · Bayern',
      'MünchenCity · München · Bayern',
      'Landkreis MünchenCounty · Bayern',
      // the same rank: the service's order within each level, the levels taking turns
      'DortmundCity · Dortmund · Nordrhein-Westfalen',
      'DortmundCounty · Nordrhein-Westfalen',
    ])
  })
})
