import { useEffect, useRef, useState, type FocusEvent } from 'react'

/**
 * A button that shows and hides a panel next to it (the header's user menu and credit breakdown),
 * with no menu library: Escape closes it and puts the focus back on the button; a click elsewhere,
 * or the focus leaving the root (Tab past the last item, Shift+Tab before the button), closes it.
 * The root element gets `rootRef` and `onBlur`, the button `buttonRef`.
 */
export function useDisclosure() {
  const [open, setOpen] = useState(false)
  const rootRef = useRef<HTMLDivElement>(null)
  const buttonRef = useRef<HTMLButtonElement>(null)

  useEffect(() => {
    if (!open) return
    const closeOutside = (e: PointerEvent) => {
      if (e.target instanceof Node && !rootRef.current?.contains(e.target)) setOpen(false)
    }
    const closeOnEscape = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return
      setOpen(false)
      buttonRef.current?.focus()
    }
    document.addEventListener('pointerdown', closeOutside)
    document.addEventListener('keydown', closeOnEscape)
    return () => {
      document.removeEventListener('pointerdown', closeOutside)
      document.removeEventListener('keydown', closeOnEscape)
    }
  }, [open])

  const onBlur = (e: FocusEvent<HTMLElement>) => {
    if (e.relatedTarget instanceof Node && !e.currentTarget.contains(e.relatedTarget)) setOpen(false)
  }
  return { open, setOpen, rootRef, buttonRef, onBlur }
}
