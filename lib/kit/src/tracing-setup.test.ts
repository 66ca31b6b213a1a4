import { describe, expect, it } from 'vitest';
import { createEnvReader } from './env.js';
import { SettingsError } from './errors.js';
import { readTracingSettings } from './tracing-setup.js';

const problemsOf = (source: Record<string, string>): readonly string[] => {
  const env = createEnvReader(source);
  readTracingSettings(env, { serviceName: 'portcullis-x' });
  try {
    env.finish();
  } catch (err: unknown) {
    if (err instanceof SettingsError) return err.problems;
    throw err;
  }
  return [];
};

describe('readTracingSettings', () => {
  it('is off by default, with the caller’s service name and a random instance id', () => {
    const read = () => readTracingSettings(createEnvReader({}), { serviceName: 'portcullis-x' });
    const t = read();
    expect(t).toMatchObject({
      enabled: false,
      exporterProtocol: 'http',
      serviceName: 'portcullis-x',
      serviceNamespace: '',
      samplingRate: 1,
    });
    expect(t.serviceInstanceId).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(read().serviceInstanceId).not.toBe(t.serviceInstanceId);
  });

  it('reads every TRACING_* variable', () => {
    const t = readTracingSettings(
      createEnvReader({
        TRACING_ENABLED: 'true',
        TRACING_EXPORTER_PROTOCOL: 'GRPC',
        TRACING_SERVICE_NAME: 'edge',
        TRACING_SERVICE_NAMESPACE: 'shop',
        TRACING_SERVICE_INSTANCE_ID: 'pod-2',
        TRACING_SAMPLING_RATE: '0.1',
      }),
      { serviceName: 'portcullis-x' },
    );
    expect(t).toEqual({
      enabled: true,
      exporterProtocol: 'grpc',
      serviceName: 'edge',
      serviceNamespace: 'shop',
      serviceInstanceId: 'pod-2',
      samplingRate: 0.1,
    });
  });

  it('names every bad value, refusing a rate outside 0 to 1', () => {
    expect(
      problemsOf({
        TRACING_ENABLED: 'yes',
        TRACING_EXPORTER_PROTOCOL: 'zipkin',
        TRACING_SAMPLING_RATE: '1.5',
      }),
    ).toEqual([
      'TRACING_ENABLED="yes": expected true or false',
      'TRACING_EXPORTER_PROTOCOL="zipkin": expected one of http, grpc',
      'TRACING_SAMPLING_RATE="1.5": expected a number ≥ 0 ≤ 1',
    ]);
    expect(problemsOf({ TRACING_SAMPLING_RATE: '-0.1' })).toEqual([
      'TRACING_SAMPLING_RATE="-0.1": expected a number ≥ 0 ≤ 1',
    ]);
  });
});
