/** Cache keys of the plans (TkDodo's key factories). */
export const planKeys = {
  all: ['plans'] as const,
  list: () => [...planKeys.all, 'list'] as const,
}
