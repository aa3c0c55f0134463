/** Cache keys of the service's extensions (TkDodo's key factories): one answer per session. */
export const capabilityKeys = {
  all: ['capabilities'] as const,
}
