// What hack/, bench/ and test/ may use of the inbox; services never import it (they talk over the network).
export { startInbox, type InboxApp } from './app.js';
export { loadSettings } from './settings.js';
export { buildInspector } from './web/build-inspector.js';
export { startWorker } from './worker/worker-app.js';
