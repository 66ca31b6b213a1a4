import type { RouteRateLimit } from '@portcullis/config';
import { describe, expect, it } from 'vitest';
import { routeDescriptor, type DescriptorSources } from './rate-limit.js';
import type { GatewayRoute } from './router/route-types.js';

const route = { id: 'demo/api/reports' } as GatewayRoute;
const limit = (descriptors: RouteRateLimit['descriptors']): RouteRateLimit => ({
  requestsPerUnit: 1,
  unit: 'MINUTE',
  shadowMode: false,
  descriptors,
});
const request: DescriptorSources = {
  ip: '10.0.0.7',
  headers: { 'x-tenant': 'acme' },
  params: { id: '42' },
  query: { page: ['2', '3'] },
  userId: 'app:a1',
  claims: { tier: 3 },
  appId: 'a1',
  role: 'gold',
};

describe('routeDescriptor', () => {
  it('takes each value from its source, after the route', () => {
    const all = limit([
      { key: 'ip', from: 'remoteAddress', name: '' },
      { key: 'tenant', from: 'header', name: 'X-Tenant' },
      { key: 'id', from: 'pathParam', name: 'id' },
      { key: 'page', from: 'query', name: 'page' },
      { key: 'user', from: 'user', name: '' },
      { key: 'tier', from: 'claim', name: 'tier' },
      { key: 'application', from: 'app', name: '' },
      { key: 'role', from: 'role', name: '' },
    ]);
    expect(routeDescriptor(route, all, request)).toEqual([
      { key: 'route', value: 'demo/api/reports' },
      { key: 'ip', value: '10.0.0.7' },
      { key: 'tenant', value: 'acme' },
      { key: 'id', value: '42' },
      { key: 'page', value: '2' },
      { key: 'user', value: 'app:a1' },
      { key: 'tier', value: '3' },
      { key: 'application', value: 'a1' },
      { key: 'role', value: 'gold' },
    ]);
  });

  it('sends an empty app and role for a caller without them, so they share one counter', () => {
    const sources = limit([
      { key: 'application', from: 'app', name: '' },
      { key: 'role', from: 'role', name: '' },
    ]);
    const user = { ...request, userId: 'u1', appId: undefined, role: undefined };
    expect(routeDescriptor(route, sources, user).slice(1)).toEqual([
      { key: 'application', value: '' },
      { key: 'role', value: '' },
    ]);
  });
});
