import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { render, type RenderOptions } from '@testing-library/react'
import type { ReactElement, ReactNode } from 'react'
import { createMemoryRouter, RouterProvider, type RouteObject } from 'react-router'

export function createTestQueryClient() {
  return new QueryClient({ defaultOptions: { queries: { retry: false, gcTime: Infinity }, mutations: { retry: false } } })
}

/**
 * Renders `ui` at `route` inside a fresh QueryClient and a memory router (English).
 * `routes` adds sibling routes (e.g. to assert a navigation landed).
 */
export function renderWithProviders(
  ui: ReactElement,
  {
    route = '/',
    path = '*',
    routes = [],
    queryClient = createTestQueryClient(),
    ...options
  }: {
    route?: string
    path?: string
    routes?: RouteObject[]
    queryClient?: QueryClient
  } & Omit<RenderOptions, 'wrapper'> = {},
) {
  const router = createMemoryRouter([{ path, element: ui }, ...routes], { initialEntries: [route] })
  const Wrapper = ({ children }: { children: ReactNode }) => <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
  return { router, queryClient, ...render(<RouterProvider router={router} />, { wrapper: Wrapper, ...options }) }
}
