// Placeholder: replaced by the page's real module.
export function Component() {
  return <main><h1>forgot-password</h1></main>
}
