import { setupServer } from 'msw/node'

/** Tests add their handlers with server.use(...); anything unhandled fails the test. */
export const server = setupServer()
