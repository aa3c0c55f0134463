import { paths } from '@/config/paths'

/**
 * The last search is the search: the navigation's "Search" and an export's "Back to search" open the
 * search this account last had on the search page (its address query), not an empty one. Per account
 * (two people sharing a browser keep their own), in localStorage; the filters only, never a token.
 */
const storageKey = (account: string) => `leads.last-search.v1.${account}`

/** The search page's address with the account's last search; the empty search when there is none. */
export function lastSearchPath(account: string | undefined): string {
  if (account === undefined) return paths.search
  try {
    const query = localStorage.getItem(storageKey(account))
    return query ? `${paths.search}?${query}` : paths.search
  } catch {
    // storage blocked (private mode, a policy): the empty search, as before there was a last one
    return paths.search
  }
}

/**
 * Keeps `query` (an address query without "?") as the account's last search. An empty search is not
 * one: the search page opened plainly (typed, or after signing in) must not lose the last search;
 * only "New search" forgets it (`forgetLastSearch`).
 */
export function rememberLastSearch(account: string, query: string): void {
  if (!query) return
  try {
    localStorage.setItem(storageKey(account), query)
  } catch {
    // a full quota or blocked storage: the search works, only the navigation opens it empty
  }
}

/** "New search": the person starts over on purpose, and the navigation opens the empty search. */
export function forgetLastSearch(account: string): void {
  try {
    localStorage.removeItem(storageKey(account))
  } catch {
    // blocked storage held nothing
  }
}
