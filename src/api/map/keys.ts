/** Cache keys of the basemap's own data (extension `geo`). */
export const mapKeys = {
  all: ['map'] as const,
  labels: (lang: string) => [...mapKeys.all, 'labels', lang] as const,
}
