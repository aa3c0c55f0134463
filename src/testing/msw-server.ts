import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'

/**
 * Tests add their handlers with server.use(...); anything unhandled fails the test. One default: the
 * service has no extensions (`/api/capabilities/` answers 404, as the real service does), so a test
 * that is not about them never sees them.
 */
export const server = setupServer(http.get('*/api/capabilities/', () => HttpResponse.json({ detail: 'Not found.' }, { status: 404 })))
