// What hack/, bench/ and test/ may use of the inbox (and `./inspector`, the web inspector's build, light for
// hack's scripts); services never import it (they talk over the network).
export { startInbox, type InboxApp } from './app.js';
export { loadSettings } from './settings.js';
export { startWorker } from './worker/worker-app.js';
