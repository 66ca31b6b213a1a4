// What hack/, bench/ and test/ may use of the ratelimit service; services never import it (they talk over the
// network).
export { startRateLimit, type RateLimitApp } from './app.js';
export { buildRuleSet } from './config/rule-set.js';
export { RATE_LIMIT_CONFIG_TYPE } from './config/xds-source.js';
export { loadRateLimitServiceDefinition } from './servers/grpc-server.js';
export { loadSettings } from './settings.js';
export { Stats } from './stats/stats.js';
