// What hack/, bench/ and test/ may use of the gateway; services never import it (they talk over the network).
export { startGateway, type GatewayApp } from './app.js';
export { expiryOf, nameOf, rolesOf } from './apps/admin-routes.js';
export { createRedisAppStore } from './apps/redis-app-store.js';
export { loadSettings } from './settings.js';
