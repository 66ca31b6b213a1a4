// What hack/, bench/ and test/ may use of the gateway (and `./apps`, src/apps/index.ts); services never import
// it (they talk over the network).
export { startGateway, type GatewayApp } from './app.js';
export { loadSettings } from './settings.js';
