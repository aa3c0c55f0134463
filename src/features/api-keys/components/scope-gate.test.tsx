import { screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { describe, expect, it } from 'vitest'
import { server } from '@/testing/msw-server'
import { renderWithProviders } from '@/testing/render'
import { CreateKeyForm } from './create-key-form'

/*
 * Issue 20: the key scopes and caps are an extension (scoped_api_keys), and so are key names
 * (api_key_names, issue 25). While the capabilities are still being asked nothing of them shows, and
 * a key created then sends only the interface's `expiry`.
 */
describe('create key form against a service whose capabilities are still loading', () => {
  it('shows no scope, cap or name control and sends only the interface’s fields', async () => {
    let answerCapabilities: () => void = () => {}
    const capabilities = new Promise<void>((resolve) => (answerCapabilities = resolve))
    let body: unknown
    server.use(
      http.get('*/api/capabilities/', async () => {
        await capabilities
        return HttpResponse.json({
          scoped_api_keys: { version: 1, scopes: ['read', 'export'] },
          api_key_names: { version: 1, max_length: 60 },
        })
      }),
      http.post('*/api/user/api-keys/', async ({ request }) => {
        body = await request.json()
        return HttpResponse.json(
          { token: 'lds_x.secret', api_key: { id: 'k1', token_key: 'lds_x', created: new Date().toISOString(), expiry: null } },
          { status: 201 },
        )
      }),
    )
    renderWithProviders(<CreateKeyForm onCreated={() => {}} />)
    const create = await screen.findByRole('button', { name: /create/i })
    expect(screen.queryByRole('radio')).not.toBeInTheDocument()
    expect(screen.queryByText(/read-only/i)).not.toBeInTheDocument()
    expect(screen.queryByRole('textbox', { name: 'Name (optional)' })).not.toBeInTheDocument()
    await userEvent.click(create)
    await waitFor(() => expect(body).toBeDefined())
    expect(body).toEqual({})
    // once the service lists the extension, the choice appears
    answerCapabilities()
    expect(await screen.findAllByRole('radio')).toHaveLength(2)
    expect(screen.getByRole('textbox', { name: 'Name (optional)' })).toBeInTheDocument()
  })
})
