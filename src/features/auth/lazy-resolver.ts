import type { FieldValues, Resolver } from 'react-hook-form'

/**
 * A react-hook-form resolver whose schema code loads on first use. The sign-in page validates
 * only when the person submits, so zod need not be part of the page's first load (budget:
 * 150 KB gzip, counted until the network is idle); the form starts fetching it when the person
 * starts on it (focus or pointer), and a submit waits for it.
 */
export function lazyResolver<T extends FieldValues>(load: () => Promise<Resolver<T>>): Resolver<T> & { preload: () => void } {
  let loading: Promise<Resolver<T>> | null = null
  const get = () => (loading ??= load())
  const resolver: Resolver<T> = async (values, context, options) => (await get())(values, context, options)
  return Object.assign(resolver, { preload: () => void get() })
}
