// Placeholder: replaced by the page's real module.
export function Component() {
  return <main><h1>api-keys</h1></main>
}
