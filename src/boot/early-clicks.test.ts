import { describe, expect, it, vi } from 'vitest'
import { holdEarlyClicks } from './early-clicks'

function page(html: string) {
  const root = document.createElement('div')
  root.innerHTML = html
  document.body.append(root)
  return root
}

describe('holdEarlyClicks', () => {
  it('holds a click on a button and plays it once, after the release, however often it was clicked', () => {
    const root = page('<button type="button">Language</button>')
    const button = root.querySelector('button')!
    const seen = vi.fn()
    const release = holdEarlyClicks(root)
    button.addEventListener('click', seen)
    button.click()
    button.click()
    expect(seen).not.toHaveBeenCalled()
    release()
    expect(seen).toHaveBeenCalledTimes(1)
    release()
    expect(seen).toHaveBeenCalledTimes(1)
    // after the release, clicks go through as usual
    button.click()
    expect(seen).toHaveBeenCalledTimes(2)
  })

  it('undoes a checkbox toggled before the release and toggles it on the release, through its label too', () => {
    const root = page(
      '<label><input type="checkbox"> An email address</label><input type="radio" name="f" value="csv" checked><input type="radio" name="f" value="xlsx" id="x">',
    )
    const box = root.querySelector<HTMLInputElement>('input[type="checkbox"]')!
    const xlsx = root.querySelector<HTMLInputElement>('#x')!
    const release = holdEarlyClicks(root)
    root.querySelector('label')!.click()
    xlsx.click()
    expect(box.checked).toBe(false)
    expect(xlsx.checked).toBe(false)
    release()
    expect(box.checked).toBe(true)
    expect(xlsx.checked).toBe(true)
  })

  it('leaves submit buttons and links alone, and does not play a click on a control replaced meanwhile', () => {
    const root = page('<form><button type="submit">Sign in</button></form><a href="#plans">Plans</a><button type="button">Menu</button>')
    const submitted = vi.fn((e: Event) => e.preventDefault())
    root.querySelector('form')!.addEventListener('submit', submitted)
    const release = holdEarlyClicks(root)
    root.querySelector<HTMLButtonElement>('button[type="submit"]')!.click()
    expect(submitted).toHaveBeenCalledTimes(1)
    const menu = root.querySelector<HTMLButtonElement>('button[type="button"]')!
    const seen = vi.fn()
    menu.addEventListener('click', seen)
    menu.click()
    menu.remove()
    release()
    expect(seen).not.toHaveBeenCalled()
  })

  it('ignores clicks outside its root', () => {
    const root = page('<p>painted</p>')
    const outside = page('<button type="button">Outside</button>')
    const seen = vi.fn()
    outside.querySelector('button')!.addEventListener('click', seen)
    const release = holdEarlyClicks(root)
    outside.querySelector('button')!.click()
    expect(seen).toHaveBeenCalledTimes(1)
    release()
  })
})
