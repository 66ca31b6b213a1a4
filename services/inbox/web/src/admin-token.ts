// The admin token the admin view was given: in sessionStorage only, so it lasts as long as the tab and is
// never a cookie (a cookie would go with every request, and could be ridden by another site's form).

const KEY = 'portcullis.inbox.admin-token';

export function loadAdminToken(storage: Storage = sessionStorage): string | undefined {
  return storage.getItem(KEY) ?? undefined;
}

export function saveAdminToken(token: string, storage: Storage = sessionStorage): void {
  storage.setItem(KEY, token);
}

export function forgetAdminToken(storage: Storage = sessionStorage): void {
  storage.removeItem(KEY);
}
