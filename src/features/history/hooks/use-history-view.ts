import { useState } from 'react'

export type HistoryView = 'cards' | 'table'

/** The browser remembers the person's choice (a preference, not account data: no account in the key). */
export const HISTORY_VIEW_KEY = 'leads.history.view'

function readView(): HistoryView {
  try {
    return localStorage.getItem(HISTORY_VIEW_KEY) === 'table' ? 'table' : 'cards'
  } catch {
    return 'cards'
  }
}

/** Cards or the compact table, as last chosen in this browser. */
export function useHistoryView(): readonly [HistoryView, (view: HistoryView) => void] {
  const [view, setView] = useState(readView)
  const choose = (next: HistoryView) => {
    setView(next)
    try {
      localStorage.setItem(HISTORY_VIEW_KEY, next)
    } catch {
      // storage blocked or full: the choice holds for this visit only
    }
  }
  return [view, choose] as const
}
