import { forwardRef, useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes } from 'react'

const inputClass =
  'block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm text-slate-900 shadow-xs placeholder:text-slate-500 aria-[invalid=true]:border-red-600 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100 dark:placeholder:text-slate-400'

interface FieldChrome {
  label: ReactNode
  /** Message shown under the field and linked with aria-describedby; marks the field invalid. */
  error?: string | undefined
  hint?: ReactNode
}

/** A labelled text input for react-hook-form (`{...register('email')}`), with error and hint wired for screen readers. */
export const TextField = forwardRef<HTMLInputElement, FieldChrome & InputHTMLAttributes<HTMLInputElement>>(
  function TextField({ label, error, hint, id, className = '', ...rest }, ref) {
    const autoId = useId()
    const inputId = id ?? autoId
    const hintId = hint ? `${inputId}-hint` : undefined
    const errorId = error ? `${inputId}-error` : undefined
    return (
      <div className={className}>
        <label htmlFor={inputId} className="mb-1 block text-sm font-medium">
          {label}
        </label>
        <input
          ref={ref}
          id={inputId}
          aria-invalid={error ? true : undefined}
          aria-describedby={[hintId, errorId].filter(Boolean).join(' ') || undefined}
          className={inputClass}
          {...rest}
        />
        {hint && (
          <p id={hintId} className="mt-1 text-xs text-slate-600 dark:text-slate-400">
            {hint}
          </p>
        )}
        {error && (
          <p id={errorId} className="mt-1 text-sm text-red-700 dark:text-red-400">
            {error}
          </p>
        )}
      </div>
    )
  },
)

export const SelectField = forwardRef<HTMLSelectElement, FieldChrome & SelectHTMLAttributes<HTMLSelectElement>>(
  function SelectField({ label, error, hint, id, className = '', children, ...rest }, ref) {
    const autoId = useId()
    const selectId = id ?? autoId
    const hintId = hint ? `${selectId}-hint` : undefined
    const errorId = error ? `${selectId}-error` : undefined
    return (
      <div className={className}>
        <label htmlFor={selectId} className="mb-1 block text-sm font-medium">
          {label}
        </label>
        <select
          ref={ref}
          id={selectId}
          aria-invalid={error ? true : undefined}
          aria-describedby={[hintId, errorId].filter(Boolean).join(' ') || undefined}
          className={inputClass}
          {...rest}
        >
          {children}
        </select>
        {hint && (
          <p id={hintId} className="mt-1 text-xs text-slate-600 dark:text-slate-400">
            {hint}
          </p>
        )}
        {error && (
          <p id={errorId} className="mt-1 text-sm text-red-700 dark:text-red-400">
            {error}
          </p>
        )}
      </div>
    )
  },
)

export { inputClass }
