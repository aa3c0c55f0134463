export const accountKeys = {
  all: ['account'] as const,
  weeklyUsage: (weeks: number, account?: string) => [...accountKeys.all, 'weekly-usage', weeks, account] as const,
}
