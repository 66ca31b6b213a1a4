import { describe, expect, it } from 'vitest';
import { createHealth } from './health.js';

describe('createHealth', () => {
  it('is healthy only when every registered component is, and reports changes', () => {
    const health = createHealth();
    const changes: boolean[] = [];
    health.onChange((h) => changes.push(h));
    health.register('sigterm', true);
    health.register('config', false);
    expect(health.isHealthy()).toBe(false);
    health.set('config', true);
    health.set('unknown', false);
    expect(health.isHealthy()).toBe(true);
    health.set('sigterm', false);
    expect(health.snapshot()).toEqual({ sigterm: false, config: true });
    expect(changes).toEqual([false, true, false]);
  });

  it('stops calling a listener that unsubscribed', () => {
    const health = createHealth();
    const changes: boolean[] = [];
    const stop = health.onChange((h) => changes.push(h));
    health.register('a', false);
    stop();
    health.set('a', true);
    expect(changes).toEqual([false]);
  });
});
