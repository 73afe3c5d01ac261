// The bearer token of a console whose services take only OAuth tokens: given by the user, kept for the
// browser tab (sessionStorage, gone when the tab closes), sent with every API call.
const KEY = "sluice.token";

// Reached through globalThis: the console's modules are also loaded by tests outside a browser.
const storage = () => (globalThis as { sessionStorage?: Storage }).sessionStorage;

export function token(): string | null {
  return storage()?.getItem(KEY) ?? null;
}

export function setToken(value: string): void {
  storage()?.setItem(KEY, value.trim().replace(/^bearer\s+/i, ""));
}

/** The header the API calls carry: none without a token (the browser's Basic credentials apply). */
export function authorization(): Record<string, string> {
  const given = token();
  return given ? { authorization: `Bearer ${given}` } : {};
}

/** Drops a refused token and shows the sign-in again. */
export function forgetToken(): void {
  if (token() === null) return;
  storage()?.removeItem(KEY);
  (globalThis as { location?: { reload(): void } }).location?.reload();
}
