/** Cache keys of the account's endpoints (TkDodo's key factories): every invalidation goes through these. */
export const accountKeys = {
  all: ['account'] as const,
  profile: () => [...accountKeys.all, 'profile'] as const,
  weeklyUsage: (weeks: number, account?: string) => [...accountKeys.all, 'weekly-usage', weeks, account] as const,
}
