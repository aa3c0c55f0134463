/** What a list may hold (issue 27, extension `lists` in capabilities). */
export const MAX_FILE_MB = 50
export const MAX_FILE_BYTES = MAX_FILE_MB * 1024 * 1024
export const MAX_ROWS = 200_000
export const MAX_LISTS = 20
export const MAX_COLUMNS = 200
/** One CSV record or XLSX cell at most (a name, an address…): a longer one is not a list of businesses. */
export const MAX_CELL_BYTES = 64 * 1024
/**
 * XLSX is a zip: what its parts may unpack to, at most, whatever the compressed size (a zip bomb
 * unpacks a few KB to gigabytes). yauzl holds every entry to the size its directory declares.
 */
export const MAX_SHEET_XML_BYTES = 400 * 1024 * 1024
export const MAX_SHARED_STRINGS_BYTES = 60 * 1024 * 1024
export const MAX_SMALL_PART_BYTES = 1024 * 1024

/** The upload request, whose body app.ts leaves to the lists module's own limit. */
export const isListUpload = (method: string, path: string) => method === 'POST' && /^\/api\/lists\/?$/.test(path)
