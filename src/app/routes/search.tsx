// Placeholder: replaced by the page's real module.
export function Component() {
  return <main><h1>search</h1></main>
}
