import { loadConfig } from './config.ts'
import { startService } from './service.ts'

const config = loadConfig()
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
