import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { createHttpApp } from './http-app.js';
import { createLogger } from './log.js';
import { addProbeRoutes, createReadiness, trackRedis } from './probes.js';

describe('createReadiness', () => {
  it('names the pushed components and the checks that fail, and fails for good on shutDown', () => {
    const readiness = createReadiness();
    let loopAlive = true;
    readiness.health.register('xds', false);
    readiness.addCheck('consumer loop', () => loopAlive);
    expect(readiness.failing()).toEqual(['xds']);
    readiness.health.set('xds', true);
    expect(readiness.failing()).toEqual([]);
    loopAlive = false;
    expect(readiness.failing()).toEqual(['consumer loop']);
    loopAlive = true;
    readiness.shutDown();
    expect(readiness.failing()).toEqual(['shutdown']);
  });

  it('fails at once on SIGINT without waiting', async () => {
    const readiness = createReadiness({ drainDelayMs: 60_000 });
    await readiness.stopTraffic('SIGINT');
    expect(readiness.failing()).toEqual(['shutdown']);
  });
});

describe('trackRedis', () => {
  it('follows the connection: ready on ready, not on close or end', () => {
    const client = Object.assign(new EventEmitter(), { status: 'connecting' });
    const readiness = createReadiness();
    trackRedis(readiness.health, 'redis', client);
    expect(readiness.failing()).toEqual(['redis']);
    client.emit('ready');
    expect(readiness.failing()).toEqual([]);
    client.emit('close');
    expect(readiness.failing()).toEqual(['redis']);
    client.emit('ready');
    client.emit('end');
    expect(readiness.failing()).toEqual(['redis']);
  });

  it('starts ready when the client already is', () => {
    const client = Object.assign(new EventEmitter(), { status: 'ready' });
    const readiness = createReadiness();
    trackRedis(readiness.health, 'redis', client);
    expect(readiness.failing()).toEqual([]);
  });
});

describe('addProbeRoutes', () => {
  it('answers liveness always and readiness with the failing components', async () => {
    const app = createHttpApp(createLogger({ level: 'fatal', format: 'json' }), () => ({
      statusCode: 500,
      body: { error: 'unexpected', code: 'INTERNAL' },
    }));
    const readiness = createReadiness();
    readiness.health.register('redis', true);
    addProbeRoutes(app, readiness);
    expect((await app.inject('/readyz')).json()).toEqual({ status: 'ready' });
    readiness.health.set('redis', false);
    readiness.shutDown();
    const notReady = await app.inject('/readyz');
    expect(notReady.statusCode).toBe(503);
    expect(notReady.json()).toEqual({
      error: 'not ready: shutdown, redis',
      code: 'NOT_READY',
    });
    const live = await app.inject('/healthz');
    expect([live.statusCode, live.json()]).toEqual([200, { status: 'ok' }]);
  });
});
