/** The build manifest's entries, as far as the route table reads them. */
export type Manifest = Record<string, { file: string; imports?: string[]; dynamicImports?: string[]; isEntry?: boolean }>

/**
 * `{ [route pattern]: built files }` from each route's source files (manifest keys): the files of the
 * sources and of everything they import, minus what the entry and the app it starts (its dynamic
 * import, src/boot/start.tsx) fetch themselves. The service matches an address against the patterns
 * segment by segment, a `:name` segment standing for any one segment: nothing else is admitted.
 */
export function routeFiles(manifest: Manifest, sources: Record<string, string[]>): Record<string, string[]> {
  const closure = (keys: readonly string[], into = new Set<string>()) => {
    const walk = (k: string) => {
      if (into.has(k) || !manifest[k]) return
      into.add(k)
      for (const i of manifest[k].imports ?? []) walk(i)
    }
    keys.forEach(walk)
    return into
  }
  const entries = Object.keys(manifest).filter((k) => manifest[k]!.isEntry)
  const have = closure(entries.flatMap((k) => [k, ...(manifest[k]!.dynamicImports ?? [])]))
  const table: Record<string, string[]> = {}
  for (const [pattern, keys] of Object.entries(sources)) {
    if (!/^(\/([\w-]+|:\w+))+$|^\/$/.test(pattern)) throw new Error(`routes.json: the service cannot match ${pattern}`)
    const missing = keys.filter((k) => !manifest[k])
    if (missing.length) throw new Error(`routes.json: ${pattern} needs ${missing.join(', ')}, which the build's manifest does not name`)
    table[pattern] = [...closure(keys)].filter((k) => !have.has(k)).map((k) => `/${manifest[k]!.file}`)
  }
  return table
}
