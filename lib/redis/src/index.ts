export { defineScript, type RedisScript } from './script.js';
