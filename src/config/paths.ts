/** Every route of the dashboard, once. */
export const paths = {
  home: '/',
  signIn: '/sign-in',
  signUp: '/sign-up',
  forgotPassword: '/forgot-password',
  resetPassword: '/reset-password',
  confirmEmail: '/confirm-email',
  plans: '/plans',
  search: '/search',
  // ids are opaque (a UUID, "s-12"): encoded as one path segment
  exportJob: (searchId: string) => `/exports/${encodeURIComponent(searchId)}`,
  exportJobPattern: '/exports/:searchId',
  history: '/history',
  lists: '/lists',
  list: (listId: string) => `/lists/${encodeURIComponent(listId)}`,
  listPattern: '/lists/:listId',
  apiKeys: '/api-keys',
  webhooks: '/webhooks',
  account: '/account',
} as const
