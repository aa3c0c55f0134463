import { loadConfig } from './config.ts'
import { EMBEDDED_COMPANIES } from './db/db.ts'
import { startService } from './service.ts'

const config = loadConfig()
if (!config.databaseUrl && config.seedCompanies > EMBEDDED_COMPANIES) {
  // said before the seed starts: at a million companies it runs for many minutes (docs/benchmarks.md)
  console.warn(
    `SEED_COMPANIES=${config.seedCompanies} is more than the embedded database serves well (about ${EMBEDDED_COMPANIES.toLocaleString('en')} ` +
      'companies): seeding takes long, and previews, exports and every request sharing its one connection slow down with the size. ' +
      'Set DATABASE_URL to a PostgreSQL database for this size (docs/benchmarks.md).',
  )
}
const service = await startService(config)
console.log(`Lead dashboard and API: ${service.url}/`)
if (!config.databaseUrl) console.log(`Data: ${config.dataDir} (embedded PostgreSQL)`)
console.log('Demo account: demo@example.com / demo-password')

const shutdown = async () => {
  await service.close()
  process.exit(0)
}
process.once('SIGINT', shutdown)
process.once('SIGTERM', shutdown)
