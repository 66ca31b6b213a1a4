// The applications room's entry for the admin scripts of hack/ (create-user, create-app-key): light, so a
// script does not load the whole gateway.
export { expiryOf, nameOf, rolesOf } from './admin-routes.js';
export { createRedisAppStore } from './redis-app-store.js';
