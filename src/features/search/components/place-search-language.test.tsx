import { screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { afterEach, describe, expect, it } from 'vitest'
import { changeLanguage, i18n } from '@/lib/i18n'
import { server } from '@/testing/msw-server'
import { renderWithProviders } from '@/testing/render'
import { PlaceSearch } from './place-pickers'

/** Issue 25: the place search is asked in the reader's language (extension `place_names`, `lng`). */

const cologne = { id: '40', name: 'Köln', level: 3, country: 'DE', level1_id: 5, level1_name: 'Nordrhein-Westfalen' }

function answer(capabilities: boolean) {
  const asked: URLSearchParams[] = []
  server.use(
    http.get('*/api/capabilities/', () =>
      capabilities ? HttpResponse.json({ place_names: { version: 1 } }) : HttpResponse.json({ detail: 'Not found.' }, { status: 404 }),
    ),
    http.get('*/api/locations/search/', ({ request }) => {
      const params = new URL(request.url).searchParams
      asked.push(params)
      const q = params.get('q') ?? ''
      return HttpResponse.json({ level1: [], level2: [], level3: [q === 'Köln' ? cologne : { ...cologne, matched_name: 'Cologne' }] })
    }),
  )
  return asked
}

afterEach(async () => {
  if (i18n.language !== 'en') await changeLanguage('en')
})

const noop = () => {}
const none = { level1: [], level2: [], level3: [] }

describe('place search in the reader’s language', () => {
  it('sends the language with the query, and a language change asks again (the language is part of the key)', async () => {
    const asked = answer(true)
    const user = userEvent.setup()
    renderWithProviders(<PlaceSearch countries={['DE']} places={none} onChange={noop} />)
    const box = screen.getByRole('combobox', { name: 'Find a place' })
    await user.type(box, 'Cologne')
    expect(await screen.findByRole('option', { name: /Köln \(Cologne\)/ })).toBeInTheDocument()
    expect(asked.at(-1)?.get('lng')).toBe('en')

    await changeLanguage('de')
    await waitFor(() => expect(asked.at(-1)?.get('lng')).toBe('de'))
    expect(asked.at(-1)?.get('q')).toBe('Cologne')
  })

  it('sends no language to a service without the extension', async () => {
    const asked = answer(false)
    const user = userEvent.setup()
    renderWithProviders(<PlaceSearch countries={['DE']} places={none} onChange={noop} />)
    await user.type(screen.getByRole('combobox', { name: 'Find a place' }), 'Köln')
    expect(await screen.findByRole('option', { name: /Köln/ })).toBeInTheDocument()
    expect(asked.length).toBeGreaterThan(0)
    expect(asked.every((p) => !p.has('lng'))).toBe(true)
  })
})
