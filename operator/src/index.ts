// What hack/, bench/ and test/ may use of the operator; services never import it (they talk over the network).
export { startOperator, type OperatorApp } from './app.js';
export { loadSettings } from './settings.js';
