/**
 * Controls the page painted from the HTML (the service's prerendered markup) before its code has run:
 * a button there does nothing yet, and a checkbox or radio would change on screen while the page's
 * state, once hydrated, says otherwise. A click on one of them is held (its native effect undone) and
 * played again, once per control and in order, when the page has been hydrated — the tap on a slow
 * phone is answered late rather than lost. Submit buttons are not held: they stay disabled until
 * hydration (src/lib/use-hydrated.ts), and links work natively.
 */
const HELD = 'button:not([type="submit"]), input[type="checkbox"], input[type="radio"], [role="button"], [role="tab"], [role="switch"]'

/** Starts holding clicks inside `root`; the function returned stops and replays them (once, however often called). */
export function holdEarlyClicks(root: HTMLElement): () => void {
  const held: HTMLElement[] = []
  const hold = (event: MouseEvent) => {
    const control = event.target instanceof Element ? event.target.closest<HTMLElement>(HELD) : null
    if (!control || !root.contains(control)) return
    event.preventDefault()
    event.stopImmediatePropagation()
    if (!held.includes(control)) held.push(control)
  }
  root.addEventListener('click', hold, true)
  let released = false
  return () => {
    if (released) return
    released = true
    root.removeEventListener('click', hold, true)
    // a page drawn afresh rather than hydrated has replaced these elements: nothing to answer then
    for (const control of held) if (control.isConnected && !control.matches(':disabled')) control.click()
  }
}
