import { useSyncExternalStore } from 'react'

const subscribe = () => () => {}

/**
 * False while React hydrates markup the service prerendered (src/boot/prerender.tsx), and in that
 * markup itself; true in every render after. What must not work before the page's code does (a
 * form's submit, which would otherwise send the form natively, fields in the address) asks this.
 */
export const useHydrated = (): boolean =>
  useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  )
