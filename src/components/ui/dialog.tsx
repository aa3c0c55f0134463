import { Dialog as HDialog, DialogPanel, DialogTitle, Description } from '@headlessui/react'
import type { ReactNode } from 'react'

export interface DialogProps {
  open: boolean
  /** Called on Escape and outside click; pass a no-op to make the dialog non-dismissable. */
  onClose: () => void
  title: ReactNode
  description?: ReactNode
  children?: ReactNode
  /** Buttons, rendered at the end; the first focusable element gets focus unless `initialFocus` is used. */
  actions?: ReactNode
  size?: 'md' | 'lg'
}

/** Accessible modal (Headless UI: focus trap, Escape, aria-modal, labelled by its title). */
export function Dialog({ open, onClose, title, description, children, actions, size = 'md' }: DialogProps) {
  return (
    <HDialog open={open} onClose={onClose} className="relative z-50">
      <div className="fixed inset-0 bg-slate-950/50" aria-hidden="true" />
      <div className="fixed inset-0 flex w-screen items-center justify-center overflow-y-auto p-4">
        <DialogPanel className={`w-full ${size === 'lg' ? 'max-w-2xl' : 'max-w-md'} rounded-lg bg-white p-6 shadow-xl dark:bg-slate-900`}>
          <DialogTitle className="text-lg font-semibold">{title}</DialogTitle>
          {description && <Description className="mt-2 text-sm text-slate-600 dark:text-slate-300">{description}</Description>}
          {children && <div className="mt-4">{children}</div>}
          {actions && <div className="mt-6 flex flex-wrap justify-end gap-3">{actions}</div>}
        </DialogPanel>
      </div>
    </HDialog>
  )
}
