import { Outlet } from 'react-router'

// Placeholder: replaced by the real app shell (navigation, balance, user menu, auth guard).
export function Component() {
  return <Outlet />
}
