// Starts the reference service for the end-to-end tests on a fresh data directory.
import { rmSync } from 'node:fs'
import { spawn } from 'node:child_process'

const dataDir = process.env.DATA_DIR
if (!dataDir || !dataDir.includes('e2e')) throw new Error('DATA_DIR must be an e2e directory')
rmSync(dataDir, { recursive: true, force: true })
const child = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], { stdio: 'inherit', env: process.env })
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig))
child.on('exit', (code) => process.exit(code ?? 0))
