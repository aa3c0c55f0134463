import { connect, type Socket } from 'node:net'

/** Raw TCP to a test service, for what fetch cannot do: a head or a body sent slowly, or never finished. */
export function openSocket(serviceUrl: string): Promise<Socket> {
  const { port } = new URL(serviceUrl)
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), '127.0.0.1', () => resolve(s))
    s.on('error', reject)
  })
}

/** What the service sent until it closed the connection, or until `ms` passed with it still open. */
export function answerOf(s: Socket, ms: number): Promise<{ closed: boolean; data: string }> {
  return new Promise((resolve) => {
    let data = ''
    s.on('data', (d: Buffer) => (data += d.toString()))
    const timer = setTimeout(() => resolve({ closed: false, data }), ms)
    s.on('close', () => {
      clearTimeout(timer)
      resolve({ closed: true, data })
    })
    s.on('error', () => undefined)
  })
}
