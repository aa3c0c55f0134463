export const accountKeys = {
  all: ['account'] as const,
  weeklyUsage: (weeks: number) => [...accountKeys.all, 'weekly-usage', weeks] as const,
}
