// Placeholder: replaced by the page's real module.
export function Component() {
  return <main><h1>sign-up</h1></main>
}
