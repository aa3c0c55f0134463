import type { Deps } from '../app-env.ts'
import { describeError } from './errors.ts'

/**
 * Work a request leaves for after its answer (issue 22: a password-reset request answers before it
 * looks the account up, so its time says nothing about whether the account exists). One task at a
 * time per service, at most MAX_WAITING waiting (the per-address rate limits keep it far below);
 * `drain()` lets a closing service finish what was accepted.
 */
const MAX_WAITING = 1000

export class AfterAnswer {
  private chain: Promise<void> = Promise.resolve()
  private waiting = 0

  run = (task: () => Promise<void>): void => {
    if (this.waiting >= MAX_WAITING) {
      console.error('[after-answer] queue full: a task was dropped')
      return
    }
    this.waiting += 1
    this.chain = this.chain
      // a later turn of the event loop: the answer is on its way first
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(task)
      .catch((err: unknown) => console.error(`[after-answer] ${describeError(err)}`))
      .finally(() => {
        this.waiting -= 1
      })
  }

  drain(): Promise<void> {
    return this.chain
  }
}

/** Runs `task` after the answer, through the service's queue (tests may hold it: Deps.afterAnswer). */
export function afterAnswer(deps: Pick<Deps, 'afterAnswer'>, task: () => Promise<void>): void {
  if (deps.afterAnswer) deps.afterAnswer(task)
  else setImmediate(() => void task().catch((err: unknown) => console.error(`[after-answer] ${describeError(err)}`)))
}
