import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { describe, expect, it, vi } from 'vitest'
import { server } from '@/testing/msw-server'
import { renderWithProviders } from '@/testing/render'
import { fakeDelivery, fakeWebhook, serveWebhooks, webhooksCapability } from '@/testing/webhook-handlers'
import { WebhooksPage } from './webhooks-page'

function serve(options: Parameters<typeof serveWebhooks>[0] = {}) {
  const fake = serveWebhooks(options)
  server.use(...fake.handlers)
  return fake
}
const posts = (fake: ReturnType<typeof serveWebhooks>) =>
  fake.requests.filter((r) => r.method === 'POST' && r.path === '/api/user/webhooks/')

async function renderPage() {
  const view = renderWithProviders(<WebhooksPage />)
  await screen.findByRole('heading', { name: 'Your endpoints' })
  return view
}

describe('WebhooksPage without the extension', () => {
  it('says plainly that the service does not offer webhooks, and asks nothing about them', async () => {
    // the default handlers: /api/capabilities/ answers 404; any request to /api/user/webhooks/ would fail the test
    renderWithProviders(<WebhooksPage />)
    expect(await screen.findByText('This service does not offer webhooks.')).toBeInTheDocument()
    expect(screen.queryByRole('textbox', { name: 'Endpoint URL' })).not.toBeInTheDocument()
    expect(screen.queryByRole('heading', { name: 'Your endpoints' })).not.toBeInTheDocument()
  })
})

describe('adding an endpoint', () => {
  it('checks the URL and the events before sending', async () => {
    const fake = serve()
    await renderPage()
    const url = screen.getByRole('textbox', { name: 'Endpoint URL' })
    const add = screen.getByRole('button', { name: 'Add endpoint' })

    await userEvent.click(add)
    expect(await screen.findByText("Enter the endpoint's URL.")).toBeInTheDocument()
    expect(url).toHaveAttribute('aria-invalid', 'true')

    await userEvent.type(url, 'hooks.example.com/leads')
    await userEvent.click(add)
    expect(await screen.findByText('Enter a full URL, like https://example.com/webhooks.')).toBeInTheDocument()

    await userEvent.clear(url)
    await userEvent.type(url, 'http://127.0.0.1:9000/hooks')
    await userEvent.click(add)
    // this service does not allow plain http, even to loopback
    expect(await screen.findByText('Use an https URL.')).toBeInTheDocument()

    await userEvent.clear(url)
    await userEvent.type(url, 'https://user:pw@hooks.example.com/leads')
    await userEvent.click(add)
    expect(await screen.findByText('Leave the user name and password out of the URL.')).toBeInTheDocument()

    await userEvent.clear(url)
    await userEvent.type(url, 'https://hooks.example.com/leads')
    await userEvent.click(screen.getByRole('checkbox', { name: /Export ready/ }))
    await userEvent.click(screen.getByRole('checkbox', { name: /Export failed/ }))
    await userEvent.click(add)
    expect(await screen.findByText('Choose at least one event.')).toBeInTheDocument()
    expect(screen.queryByText('Use an https URL.')).not.toBeInTheDocument()
    expect(posts(fake)).toEqual([])

    await userEvent.click(screen.getByRole('checkbox', { name: /Export failed/ }))
    await userEvent.click(add)
    await screen.findByRole('dialog', { name: "Your endpoint's signing secret" })
    expect(posts(fake).map((r) => r.body)).toEqual([{ url: 'https://hooks.example.com/leads', events: ['export.failed'] }])
  })

  it('takes plain http to 127.0.0.1 or localhost only when the service allows it', async () => {
    const fake = serve({ capability: { ...webhooksCapability, allow_http_loopback: true } })
    await renderPage()
    expect(screen.getByText('This development service also accepts http://127.0.0.1 and http://localhost.')).toBeInTheDocument()
    const url = screen.getByRole('textbox', { name: 'Endpoint URL' })
    await userEvent.type(url, 'http://hooks.example.com/leads')
    await userEvent.click(screen.getByRole('button', { name: 'Add endpoint' }))
    expect(await screen.findByText('Use an https URL (plain http only to 127.0.0.1 or localhost).')).toBeInTheDocument()
    expect(posts(fake)).toEqual([])

    await userEvent.clear(url)
    await userEvent.type(url, 'http://127.0.0.1:9000/hooks')
    await userEvent.click(screen.getByRole('button', { name: 'Add endpoint' }))
    await screen.findByRole('dialog', { name: "Your endpoint's signing secret" })
    expect(posts(fake).map((r) => r.body)).toEqual([{ url: 'http://127.0.0.1:9000/hooks', events: ['export.completed', 'export.failed'] }])
  })

  it("shows the service's field error on the URL field, in the person's words, and focuses it", async () => {
    serve()
    server.use(
      http.post('/api/user/webhooks/', () =>
        HttpResponse.json(
          {
            detail: 'Invalid input.',
            code: 'invalid_input',
            errors: { url: ['The service does not call private or reserved addresses (10.0.0.5 is a private address).'] },
            error_codes: { url: [{ code: 'webhook_address_blocked' }] },
          },
          { status: 400 },
        ),
      ),
    )
    await renderPage()
    const url = screen.getByRole('textbox', { name: 'Endpoint URL' })
    await userEvent.type(url, 'https://10.0.0.5/hooks')
    await userEvent.click(screen.getByRole('button', { name: 'Add endpoint' }))
    const message = 'The service does not send to private or reserved addresses: use a public one.'
    expect(await screen.findByText(message)).toBeInTheDocument()
    expect(url).toHaveAttribute('aria-invalid', 'true')
    expect(url).toHaveAccessibleDescription(expect.stringContaining(message))
    expect(url).toHaveFocus()
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument()
  })

  it('shows the limit the service reports, and its refusal when another tab got there first', async () => {
    serve({ endpoints: [fakeWebhook()] })
    server.use(
      http.post('/api/user/webhooks/', () =>
        HttpResponse.json(
          {
            detail: 'Invalid input.',
            code: 'invalid_input',
            errors: { non_field_errors: ['An account can have at most 10 webhook endpoints: remove one first.'] },
            error_codes: { non_field_errors: [{ code: 'webhook_limit', limit: 10 }] },
          },
          { status: 400 },
        ),
      ),
    )
    await renderPage()
    expect(await screen.findByTestId('webhook-limit')).toHaveTextContent('Endpoints: 1 of 10.')
    await userEvent.type(screen.getByRole('textbox', { name: 'Endpoint URL' }), 'https://hooks.example.com/second')
    await userEvent.click(screen.getByRole('button', { name: 'Add endpoint' }))
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'The endpoint could not be added: You already have the most webhook endpoints allowed (10). Remove one first.',
    )
  })

  it('at the limit, says so and does not offer to add', async () => {
    serve({ capability: { ...webhooksCapability, limit: 1 }, endpoints: [fakeWebhook()] })
    await renderPage()
    expect(await screen.findByText('You have reached the limit of 1 endpoints. Remove one to add another.')).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Add endpoint' })).toBeDisabled()
  })

  it('shows the signing secret once, with a copy button, until the person says they have it; focus returns', async () => {
    const fake = serve()
    const writeText = vi.fn().mockResolvedValue(undefined)
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true })
    await renderPage()
    expect(await screen.findByText('No endpoints yet')).toBeInTheDocument()
    await userEvent.type(screen.getByRole('textbox', { name: 'Endpoint URL' }), 'https://hooks.example.com/leads')
    const add = screen.getByRole('button', { name: 'Add endpoint' })
    await userEvent.click(add)

    const dialog = await screen.findByRole('dialog', { name: "Your endpoint's signing secret" })
    const secret = 'whsec_test-secret-1-abcdefghijklmnop'
    expect(within(dialog).getByLabelText('Signing secret')).toHaveValue(secret)
    expect(within(dialog).getByText(/you will not see it again/)).toBeInTheDocument()
    expect(within(dialog).getByText('https://hooks.example.com/leads')).toBeInTheDocument()
    await userEvent.click(within(dialog).getByRole('button', { name: 'Copy secret' }))
    expect(writeText).toHaveBeenCalledWith(secret)
    expect(await within(dialog).findByText('Copied')).toBeInTheDocument()

    const done = within(dialog).getByRole('button', { name: 'Done' })
    expect(done).toBeDisabled()
    await userEvent.keyboard('{Escape}')
    expect(screen.getByRole('dialog', { name: "Your endpoint's signing secret" })).toBeInTheDocument()
    await userEvent.click(within(dialog).getByRole('checkbox', { name: /I have copied the secret/ }))
    await userEvent.click(done)
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument())
    await waitFor(() => expect(add).toHaveFocus())

    // from now on only the hint: the secret is not on the page, and not asked for again
    const card = await screen.findByRole('article', { name: 'https://hooks.example.com/leads' })
    expect(within(card).getByText('whsec_…mnop')).toBeInTheDocument()
    expect(screen.queryByText(secret)).not.toBeInTheDocument()
    expect(screen.queryByDisplayValue(secret)).not.toBeInTheDocument()
    expect(fake.requests.filter((r) => r.method === 'POST')).toHaveLength(1)
    // the form is empty again for the next endpoint
    expect(screen.getByRole('textbox', { name: 'Endpoint URL' })).toHaveValue('')
  })
})

describe('an endpoint', () => {
  it('lists URL, events, secret hint and date, and the last deliveries with their outcome', async () => {
    serve({
      endpoints: [fakeWebhook({ events: ['export.completed'] })],
      deliveries: {
        wh_existing01: [
          fakeDelivery({
            id: 3,
            status: 'pending',
            attempts: 2,
            last_status_code: 503,
            last_error: 'answered 503',
            next_attempt_at: '2099-01-01T10:00:00.000Z',
          }),
          fakeDelivery({
            id: 2,
            event_type: 'export.failed',
            status: 'failed',
            attempts: 6,
            last_status_code: null,
            last_error: 'connect ECONNREFUSED 203.0.113.7:443',
          }),
          fakeDelivery({ id: 1 }),
        ],
      },
    })
    await renderPage()
    const card = await screen.findByRole('article', { name: 'https://hooks.example.com/leads' })
    expect(within(card).getByText('whsec_…Ab9z')).toBeInTheDocument()
    expect(within(card).getByText('export.completed', { selector: 'dd code' })).toBeInTheDocument()
    expect(within(card).getByText('Mar 1, 2026, 10:00 AM', { exact: false })).toBeInTheDocument()

    const items = await within(card).findAllByTestId('delivery')
    expect(items).toHaveLength(3)
    expect(items[0]).toHaveTextContent('Retry scheduled')
    expect(items[0]).toHaveTextContent('HTTP 503')
    expect(items[0]).toHaveTextContent('Attempts: 2')
    expect(items[0]).toHaveTextContent('Next try: Jan 1, 2099')
    expect(items[1]).toHaveTextContent('Failed')
    expect(items[1]).toHaveTextContent('Export failed')
    expect(items[1]).toHaveTextContent('No answer')
    expect(items[1]).toHaveTextContent('Error: connect ECONNREFUSED 203.0.113.7:443')
    expect(items[2]).toHaveTextContent('Delivered')
    expect(items[2]).toHaveTextContent('HTTP 200')
    expect(items[2]).not.toHaveTextContent('Error')
  })

  it('sends a test event and shows its delivery, pending then delivered, by polling while it is under way', async () => {
    const fake = serve({ endpoints: [fakeWebhook()] })
    await renderPage()
    const card = await screen.findByRole('article', { name: 'https://hooks.example.com/leads' })
    expect(await within(card).findByText(/Nothing has been sent yet/)).toBeInTheDocument()

    await userEvent.click(within(card).getByRole('button', { name: 'Send test event' }))
    expect(await within(card).findByText(/Test event queued/)).toBeInTheDocument()
    const item = await within(card).findByTestId('delivery')
    expect(item).toHaveTextContent('Queued')
    expect(item).toHaveTextContent('Test event')

    fake.settle(200)
    await waitFor(() => expect(within(card).getByTestId('delivery')).toHaveTextContent('Delivered'), { timeout: 5_000 })
    expect(within(card).getByTestId('delivery')).toHaveTextContent('HTTP 200')
    expect(within(card).getByTestId('delivery')).toHaveTextContent('Attempts: 1')
    // the line under the buttons says how it went, for those who do not look at the list
    expect(within(card).getByText('Test event delivered: your endpoint answered HTTP 200.').closest('[role="status"]')).not.toBeNull()
    expect(fake.requests.some((r) => r.path === '/api/user/webhooks/wh_existing01/deliveries/?limit=10')).toBe(true)
  })

  it('a test event the endpoint refuses: says so, and the delivery shows why', async () => {
    const fake = serve({ endpoints: [fakeWebhook()] })
    await renderPage()
    const card = await screen.findByRole('article', { name: 'https://hooks.example.com/leads' })
    await userEvent.click(within(card).getByRole('button', { name: 'Send test event' }))
    await within(card).findByTestId('delivery')
    fake.settle(500)
    expect(await within(card).findByText(/did not accept the test event/, {}, { timeout: 5_000 })).toBeInTheDocument()
    const item = within(card).getByTestId('delivery')
    expect(item).toHaveTextContent('Failed')
    expect(item).toHaveTextContent('HTTP 500')
    expect(item).toHaveTextContent('Error: answered 500')
  })

  it('a fifth test in a minute: says how long to wait instead of an error', async () => {
    serve({ endpoints: [fakeWebhook()] })
    server.use(
      http.post('/api/user/webhooks/:id/test/', () =>
        HttpResponse.json(
          { detail: 'At most 5 test events a minute per endpoint.', code: 'throttled', retry_after: 60 },
          { status: 429, headers: { 'Retry-After': '60' } },
        ),
      ),
    )
    await renderPage()
    const card = await screen.findByRole('article', { name: 'https://hooks.example.com/leads' })
    const send = within(card).getByRole('button', { name: 'Send test event' })
    await userEvent.click(send)
    expect(await within(card).findByTestId('throttle-countdown')).toHaveTextContent(/in 1 minute|in 60 seconds/)
    expect(send).toHaveAttribute('aria-disabled', 'true')
    expect(send).toHaveFocus()
  })

  it('rotates the secret only after a confirmation that says the old one stops at once, then shows the new one once', async () => {
    const fake = serve({ endpoints: [fakeWebhook()] })
    await renderPage()
    const card = await screen.findByRole('article', { name: 'https://hooks.example.com/leads' })
    const rotate = within(card).getByRole('button', { name: 'Rotate secret' })

    await userEvent.click(rotate)
    let confirm = await screen.findByRole('dialog', { name: 'Rotate the signing secret?' })
    expect(confirm).toHaveTextContent('the old one stops working at once')
    await userEvent.click(within(confirm).getByRole('button', { name: 'Cancel' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument())
    await waitFor(() => expect(rotate).toHaveFocus())
    expect(fake.requests.filter((r) => r.path.endsWith('/rotate-secret/'))).toEqual([])

    await userEvent.click(rotate)
    confirm = await screen.findByRole('dialog', { name: 'Rotate the signing secret?' })
    await userEvent.click(within(confirm).getByRole('button', { name: 'Rotate secret' }))
    const shown = await screen.findByRole('dialog', { name: 'Your new signing secret' })
    expect(within(shown).getByLabelText('Signing secret')).toHaveValue('whsec_test-secret-1-abcdefghijklmnop')
    expect(shown).toHaveTextContent('The old secret no longer works')
    expect(shown).toHaveTextContent('you will not see it again')
    await userEvent.click(within(shown).getByRole('checkbox', { name: /I have copied the secret/ }))
    await userEvent.click(within(shown).getByRole('button', { name: 'Done' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument())
    await waitFor(() => expect(rotate).toHaveFocus())
    expect(await within(card).findByText('whsec_…mnop')).toBeInTheDocument()
    expect(within(card).getByText('Secret rotated')).toBeInTheDocument()
  })

  it('is removed only after a confirmation that it cannot be undone; focus goes to the list', async () => {
    const fake = serve({ endpoints: [fakeWebhook()] })
    await renderPage()
    const card = await screen.findByRole('article', { name: 'https://hooks.example.com/leads' })
    const remove = within(card).getByRole('button', { name: 'Remove' })
    expect(remove).toHaveAccessibleDescription('https://hooks.example.com/leads')

    await userEvent.click(remove)
    let confirm = await screen.findByRole('dialog', { name: 'Remove this endpoint?' })
    expect(confirm).toHaveTextContent('Nothing more will be sent to https://hooks.example.com/leads')
    expect(confirm).toHaveTextContent('This cannot be undone.')
    await userEvent.keyboard('{Escape}')
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument())
    await waitFor(() => expect(remove).toHaveFocus())
    expect(fake.requests.filter((r) => r.method === 'DELETE')).toEqual([])

    await userEvent.click(remove)
    confirm = await screen.findByRole('dialog', { name: 'Remove this endpoint?' })
    await userEvent.click(within(confirm).getByRole('button', { name: 'Remove endpoint' }))
    expect(await screen.findByText('No endpoints yet')).toBeInTheDocument()
    const list = screen.getByRole('region', { name: 'Your endpoints' })
    expect(within(list).getByRole('status')).toHaveTextContent('The endpoint https://hooks.example.com/leads was removed.')
    await waitFor(() => expect(screen.getByRole('heading', { name: 'Your endpoints' })).toHaveFocus())
    expect(fake.requests.filter((r) => r.method === 'DELETE').map((r) => r.path)).toEqual(['/api/user/webhooks/wh_existing01/'])
  })

  it('a list that fails to load can be asked again', async () => {
    serve()
    let calls = 0
    server.use(
      http.get('/api/user/webhooks/', () => {
        calls++
        return calls === 1 ? HttpResponse.json({ detail: 'Boom.' }, { status: 500 }) : HttpResponse.json([fakeWebhook()])
      }),
    )
    await renderPage()
    const alert = await screen.findByRole('alert', {}, { timeout: 10_000 })
    expect(alert).toHaveTextContent('Your endpoints could not be loaded')
    await userEvent.click(within(alert).getByRole('button', { name: 'Try again' }))
    expect(await screen.findByRole('article', { name: 'https://hooks.example.com/leads' })).toBeInTheDocument()
  }, 15_000)
})

describe('an endpoint the service paused (issue 22)', () => {
  it('says deliveries wait and when the next try is; "Resume deliveries" asks the service and shows the endpoint healthy again', async () => {
    const sick = Object.assign(fakeWebhook(), {
      health: 'unhealthy',
      unhealthy_since: '2026-03-02T09:00:00.000Z',
      next_retry_at: '2099-01-01T10:00:00.000Z',
      consecutive_timeouts: 3,
    })
    const fake = serve({ endpoints: [sick] })
    const resumes: string[] = []
    server.use(
      http.post('/api/user/webhooks/:id/resume/', ({ params }) => {
        resumes.push(String(params.id))
        Object.assign(sick, { health: 'healthy', unhealthy_since: null, next_retry_at: null, consecutive_timeouts: 0 })
        return HttpResponse.json(sick)
      }),
    )
    await renderPage()
    const card = await screen.findByRole('article', { name: 'https://hooks.example.com/leads' })
    const notice = within(card).getByRole('status', { name: '' })
    expect(notice).toHaveTextContent('Deliveries to this endpoint are paused')
    expect(notice).toHaveTextContent('got no answer in time')
    expect(notice).toHaveTextContent('Next try: Jan 1, 2099')
    await userEvent.click(within(card).getByRole('button', { name: 'Resume deliveries' }))
    expect(await within(card).findByText('Deliveries resumed: waiting events are being sent now.')).toBeInTheDocument()
    expect(within(card).queryByText('Deliveries to this endpoint are paused')).not.toBeInTheDocument()
    expect(resumes).toEqual(['wh_existing01'])
    expect(fake.requests.filter((r) => r.method === 'GET' && r.path === '/api/user/webhooks/').length).toBeGreaterThan(1) // the list was asked again
  })

  it('a refused resume (an API key, a minute not yet passed) says why', async () => {
    serve({ endpoints: [Object.assign(fakeWebhook(), { health: 'unhealthy', next_retry_at: null })] })
    server.use(
      http.post('/api/user/webhooks/:id/resume/', () =>
        HttpResponse.json({ detail: 'API keys cannot manage webhooks.', code: 'api_key_not_allowed' }, { status: 403 }),
      ),
    )
    await renderPage()
    const card = await screen.findByRole('article', { name: 'https://hooks.example.com/leads' })
    await userEvent.click(within(card).getByRole('button', { name: 'Resume deliveries' }))
    expect(await within(card).findByRole('alert')).toHaveTextContent(
      'Deliveries could not be resumed: An API key cannot do this. Sign in with your password.',
    )
  })

  it('shows what went wrong in the person’s words from the category the service logged, and unknown ones as sent', async () => {
    const log = [
      {
        at: '2026-03-02T09:30:00.000Z',
        attempt: 1,
        status_code: null,
        error_code: 'timeout',
        error: 'No answer within the time allowed.',
        duration_ms: 5000,
      },
      {
        at: '2026-03-02T09:31:00.000Z',
        attempt: 2,
        status_code: null,
        error_code: 'tls_failed',
        error: 'The secure connection (TLS) could not be set up.',
        duration_ms: 40,
      },
    ]
    const tls = Object.assign(
      fakeDelivery({
        id: 2,
        status: 'failed',
        attempts: 2,
        last_status_code: null,
        last_error: 'The secure connection (TLS) could not be set up.',
        attempt_log: log,
      }),
      {
        last_error_code: 'tls_failed',
      },
    )
    const unknown = Object.assign(
      fakeDelivery({ id: 1, status: 'failed', last_status_code: null, last_error: 'Something new happened.' }),
      { last_error_code: 'brand_new_category' },
    )
    serve({ endpoints: [fakeWebhook()], deliveries: { wh_existing01: [tls, unknown] } })
    await renderPage()
    const card = await screen.findByRole('article', { name: 'https://hooks.example.com/leads' })
    const items = await within(card).findAllByTestId('delivery')
    expect(items[0]).toHaveTextContent('Error: The secure connection failed: check the certificate')
    expect(items[0]).not.toHaveTextContent('could not be set up')
    await userEvent.click(within(items[0]!).getByText('Every attempt'))
    expect(items[0]).toHaveTextContent('No answer in time')
    expect(items[1]).toHaveTextContent('Error: Something new happened.')
  })
})

describe('the verification sample', () => {
  it('uses the header the service names, in Node.js or Python, and copies what is shown', async () => {
    serve({ capability: { ...webhooksCapability, signature_header: 'Acme-Signature' } })
    const writeText = vi.fn().mockResolvedValue(undefined)
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true })
    await renderPage()
    const code = screen.getByLabelText('Example receiver')
    expect(code).toHaveTextContent("req.headers['acme-signature']")
    expect(code).toHaveTextContent('timingSafeEqual')
    await userEvent.click(screen.getByRole('radio', { name: 'Python' }))
    expect(code).toHaveTextContent('self.headers.get("Acme-Signature")')
    expect(code).toHaveTextContent('hmac.compare_digest')
    await userEvent.click(screen.getByRole('button', { name: 'Copy code' }))
    expect(writeText).toHaveBeenCalledWith(expect.stringContaining('TOLERANCE_SECONDS = 300'))
    expect(writeText.mock.calls[0]![0]).toContain('import hmac')
  })
})
