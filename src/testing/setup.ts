import '@testing-library/jest-dom/vitest'
import { cleanup } from '@testing-library/react'
import { afterAll, afterEach, beforeAll } from 'vitest'
import { server } from './msw-server'
import { resetFileOptionsForTests } from '@/features/exports/file-options'
import { initI18n, loadPageNamespaces } from '@/lib/i18n'

beforeAll(async () => {
  server.listen({ onUnhandledRequest: 'error' })
  await initI18n('en')
  await loadPageNamespaces()
})
afterEach(() => {
  cleanup()
  server.resetHandlers()
  localStorage.clear()
  resetFileOptionsForTests()
  sessionStorage.clear()
})
afterAll(() => server.close())
