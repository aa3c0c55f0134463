import { useState } from 'react'
import { Button } from './button'

type CopyState = 'idle' | 'copied' | 'failed'

/** Copies `text` to the clipboard and says, in a live region, whether it worked. */
export function CopyButton({
  text,
  label,
  copiedText,
  failedText,
}: {
  text: string
  label: string
  copiedText: string
  failedText: string
}) {
  const [state, setState] = useState<CopyState>('idle')
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text)
      setState('copied')
    } catch {
      setState('failed')
    }
  }
  return (
    <div className="flex flex-wrap items-center gap-2">
      <Button variant="secondary" onClick={() => void copy()}>
        {label}
      </Button>
      <span role="status" className="text-sm">
        {state === 'copied' && <span className="text-emerald-800 dark:text-emerald-300">{copiedText}</span>}
        {state === 'failed' && <span className="text-red-700 dark:text-red-400">{failedText}</span>}
      </span>
    </div>
  )
}
