export { freePort } from './free-port.js';
export { spawnServer, type ServerProcess } from './server-process.js';
export { startRedis, withRedis, type RedisOptions, type RedisServer } from './redis.js';
export { startMemcached, type MemcachedServer } from './memcached.js';
export { createCertificates, type TestCertificates } from './certificates.js';
export { waitUntil } from './wait.js';
export { createCollectingLog, quietLog } from './logs.js';
