// Placeholder: replaced by the page's real module.
export function Component() {
  return <main><h1>export-job</h1></main>
}
