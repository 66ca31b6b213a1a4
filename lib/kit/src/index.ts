export {
  defineError,
  grpcStatusOf,
  listErrorCodes,
  PortcullisError,
  type ErrorClass,
} from './error-class.js';
export {
  BadRequestError,
  BodyTooDeepError,
  BodyTooLargeError,
  EDGE_ERRORS,
  HeadersTooLargeError,
  InternalError,
  InvalidArgumentError,
  KIT_ERRORS,
  MethodNotAllowedError,
  NotReadyError,
  NotFoundError,
  PROFILE_ERRORS,
  PortUnavailableError,
  ProfileInProgressError,
  RequestTimeoutError,
  SettingsError,
  UnauthenticatedError,
  UnavailableError,
  UnsupportedMediaTypeError,
  UriTooLongError,
} from './errors.js';
export {
  createErrorMapper,
  createGrpcErrorMapper,
  listAnsweredErrors,
  FRAMEWORK_ERRORS_BY_STATUS,
  type ErrorMapper,
  type HttpErrorAnswer,
} from './error-mapper.js';
export { GRPC_STATUS, type GrpcStatus } from './grpc-status.js';
export { parseDurationMs } from './duration.js';
export { splitHostPort, type HostPort } from './host-port.js';
export { batchPerTurn, batchPerTurnByKey } from './turn-batch.js';
export { createEnvReader, parseBoolean, type EnvReader, type EnvSource } from './env.js';
export { deepFreeze } from './deep-freeze.js';
export {
  createLogger,
  readLogOptions,
  LOG_LEVELS,
  type Logger,
  type LogLevel,
  type LogFormat,
  type LogOptions,
} from './log.js';
export { createMetricsRegistry } from './metrics.js';
export { hashToken, isTokenHashMatch } from './token-hash.js';
export { createHealth, type Health } from './health.js';
export {
  addProbeRoutes,
  createReadiness,
  failingComponents,
  trackRedis,
  type Readiness,
  type RedisConnectionEvents,
} from './probes.js';
export {
  onShutdownSignal,
  runMain,
  startParts,
  type MainOptions,
  type Part,
  type Running,
} from './lifecycle.js';
export { withCallerContext, withSpan } from './tracing.js';
export { readTracingSettings, startTracing, type Tracing, type TracingSettings } from './tracing-setup.js';
export { readTrustProxy, type TrustProxy } from './trust-proxy.js';
export {
  loadServerTls,
  type SecureContextTarget,
  type ServerTls,
  type ServerTlsFiles,
  type TlsFile,
} from './server-tls.js';
export {
  createHttpApp,
  listenHttp,
  toListenError,
  DEFAULT_MAX_JSON_DEPTH,
  type DirectAnswer,
  type DirectRoute,
  type HttpApp,
  type HttpAppOptions,
  type RunningServer,
} from './http-app.js';
export { DEFAULT_HTTP_TIMEOUTS, readHttpTimeouts, type HttpTimeouts } from './http-timeouts.js';
export { checkJsonDepth } from './json-depth.js';
export { readBody } from './read-body.js';
export {
  HEADER_VALUE_PATTERN,
  HOP_BY_HOP_HEADERS,
  countRawHeader,
  isHttpToken,
  isSendableHeaderValue,
} from './http-headers.js';
export {
  addProfileRoutes,
  parseProfileSeconds,
  parseWorker,
  takeCpuProfile,
  takeHeapSnapshot,
  DEFAULT_PROFILE_SECONDS,
  MAX_PROFILE_SECONDS,
  type WorkerProfiles,
} from './profiles.js';
export { createProfileServerPart, readProfileListener, type ProfileListener } from './profile-server.js';
export { startRuntimeMonitor, type RuntimeFigures, type RuntimeMonitor } from './runtime-figures.js';
export { cpusAllowed, cpusOfQuota, usableCpus } from './workers/cpu-count.js';
export { superviseWorkers, type Supervisor, type SupervisorOptions } from './workers/supervisor.js';
export { runMainWithWorkers, type Draining, type WorkersMainOptions } from './workers/run-with-workers.js';
export { answerMetricsAsks, createMetricsReader } from './workers/cluster-metrics.js';
