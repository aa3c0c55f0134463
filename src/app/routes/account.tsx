// Placeholder: replaced by the page's real module.
export function Component() {
  return <main><h1>account</h1></main>
}
