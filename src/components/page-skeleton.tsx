/**
 * What shows while a page's code loads on the first visit (the router's HydrateFallback): the same
 * mark index.html paints before any script runs, so nothing flashes or moves between the two.
 */
export function PageSkeleton() {
  return (
    <div className="flex min-h-dvh items-center justify-center" aria-hidden="true">
      <svg className="size-10 motion-safe:animate-pulse" viewBox="0 0 32 32" xmlns="http://www.w3.org/2000/svg">
        <rect width="32" height="32" rx="7" fill="#4f46e5" />
        <path d="M9 8v16h14" stroke="#fff" strokeWidth="3.5" fill="none" strokeLinecap="round" strokeLinejoin="round" />
      </svg>
    </div>
  )
}
