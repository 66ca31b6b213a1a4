export { freePort } from './free-port.js';
export { compareGolden, readGoldenInputs } from './golden.js';
export { spawnServer, type ServerProcess } from './server-process.js';
export { startRedis, withRedis, type RedisOptions, type RedisServer } from './redis.js';
export { startPrometheus, type PrometheusServer, type QueryAnswer, type ScrapeJob } from './prometheus.js';
export { startMemcached, type MemcachedServer } from './memcached.js';
export { createCertificates, createSelfSignedCertificate, type TestCertificates } from './certificates.js';
export { isDefined, waitFor, waitUntil, type WaitOptions } from './wait.js';
export { rateLimitHealth, runRateLimit, startRateLimitProcess } from './ratelimit-process.js';
export { createCollectingLog, quietLog } from './logs.js';
export { startRedisSentinelSet, type RedisSentinelSet } from './redis-sentinel.js';
export { startRedisCluster, type RedisCluster } from './redis-cluster.js';
export {
  REDIS_TOPOLOGIES,
  startRedisDeployment,
  type RedisDeployment,
  type RedisTopology,
} from './redis-topology.js';
export { redisCli } from './redis-cli.js';
export {
  kubeConfigVia,
  startControlPlane,
  type ControlPlane,
  type ControlPlaneOptions,
} from './control-plane.js';
export { startTcpProxy, type TcpProxy, type TcpProxyOptions } from './tcp-proxy.js';
export { PEER_NAMES, peerPath, type PeerName } from './peers.js';
export { spawnLogged, type LoggedProcess } from './logged-process.js';
export { startEntryPoint } from './entry-point-process.js';
export {
  hasExported,
  startOtlpGrpcReceiver,
  startOtlpHttpReceiver,
  type OtlpReceiver,
} from './otlp-receiver.js';
export {
  startUpstreamRateLimit,
  type UpstreamLogLine,
  type UpstreamRateLimit,
  type UpstreamRateLimitOptions,
} from './ratelimit-upstream.js';
export { compareErrorTable, readErrorTable, type DocumentedError } from './error-table.js';
export { replaceRuntimeFile, type ServicePorts } from './service-env.js';
export {
  checkSettingsDocs,
  LIB_SOURCE_DIRS,
  readTableNames,
  recordEnvNames,
  type SettingsDocsOptions,
} from './settings-docs.js';
export { runHackScript } from './hack-script.js';
export { runSchemathesis, schemathesisPath, schemathesisVersion } from './schemathesis.js';
export { settingsProblems } from './settings-problems.js';
export {
  startXdsControlPlane,
  writeXdsConfig,
  type XdsControlPlane,
  type XdsControlPlaneEvent,
} from './xds-control-plane.js';
export {
  DEFAULT_FUZZ_SEED,
  INTERNAL_DETAIL_PATTERNS,
  checkAnswer,
  findInternalDetail,
  checkRawAnswer,
  fuzz,
  fuzzScale,
  fuzzSeed,
  fuzzTimeoutMs,
  type AnswerRules,
  type FuzzAnswer,
  type FuzzRunOptions,
} from './fuzz.js';
export {
  createHttpClient,
  sendRawBytes,
  type HttpAnswer,
  type HttpClient,
  type HttpRequestSpec,
  type RawAnswer,
} from './raw-http.js';
export {
  FUZZ_METHODS,
  describeRequest,
  headerValue,
  httpBody,
  httpHeaders,
  httpPath,
  httpRequest,
  pathSegment,
  userHeaderText,
  rawRequestBytes,
} from './fuzz-http.js';
export {
  cpuProfileProblems,
  heapSnapshotProblems,
  profilePortProblems,
  type CpuProfile,
} from './v8-profiles.js';
