import { constants as zlib } from 'node:zlib'
import { compression, defineAlgorithm } from 'vite-plugin-compression2'

/** The compressed twins' settings, for the compression plugin and for chunks written again (compile-hints.ts). */
export const BROTLI = { params: { [zlib.BROTLI_PARAM_QUALITY]: zlib.BROTLI_MAX_QUALITY } }
export const GZIP = { level: 9 }

/**
 * Brotli (maximum quality) and gzip twins of every text asset, sent by the service by
 * Accept-Encoding (server/src/static.ts): nothing is compressed at request time.
 */
export const compressedTwins = () =>
  compression({
    include: /\.(js|css|svg|json|txt|webmanifest)$/,
    threshold: 1024,
    skipIfLargerOrEqual: true,
    algorithms: [defineAlgorithm('brotliCompress', BROTLI), defineAlgorithm('gzip', GZIP)],
  })
