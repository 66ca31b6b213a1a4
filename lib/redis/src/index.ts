export { FAIL_FAST_OPTIONS, MAX_RECONNECT_DELAY_MS } from './fail-fast.js';
export { defineScript, type RedisScript } from './script.js';
