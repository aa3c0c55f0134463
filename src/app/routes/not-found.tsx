// Placeholder: replaced by the page's real module.
export function Component() {
  return <main><h1>not-found</h1></main>
}
