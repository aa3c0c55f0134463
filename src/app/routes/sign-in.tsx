// Placeholder: replaced by the page's real module.
export function Component() {
  return <main><h1>sign-in</h1></main>
}
