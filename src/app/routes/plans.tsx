// Placeholder: replaced by the page's real module.
export function Component() {
  return <main><h1>plans</h1></main>
}
