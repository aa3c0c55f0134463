import { onlineManager } from '@tanstack/react-query'
import { useSyncExternalStore } from 'react'

const isOnline = () => onlineManager.isOnline()
const alwaysOnline = () => true

/** Online as React Query sees it (the browser's `online` and `offline` events): what pauses and resumes its queries. */
export const useOnline = () => useSyncExternalStore(onlineManager.subscribe, isOnline, alwaysOnline)
