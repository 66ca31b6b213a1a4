import { describe, expect, it } from 'vitest';
import { SERVICE_BUNDLE_DIR } from './bundle-dir.js';
import { labelOf, originOf } from './cpu-profile.js';

const at = (url: string, functionName = 'f') => ({ functionName, url, lineNumber: 41 });
const repo = (path: string): string => new URL(`../../${path}`, import.meta.url).href;

describe('originOf', () => {
  it.each([
    [at(repo('services/gateway/src/app.ts')), { kind: 'own', name: 'services/gateway' }],
    [at(`file://${SERVICE_BUNDLE_DIR}/gateway.mjs`), { kind: 'own', name: 'dist/gateway.mjs' }],
    [at(repo('node_modules/fastify/lib/route.js')), { kind: 'package', name: 'fastify' }],
    [at(repo('node_modules/@grpc/grpc-js/build/src/call.js')), { kind: 'package', name: '@grpc/grpc-js' }],
    [at('node:internal/url'), { kind: 'node', name: 'node core (JS)' }],
    [at('', '(garbage collector)'), { kind: 'native', name: '(garbage collector)' }],
    [at('', 'writev'), { kind: 'native', name: 'native bindings and V8 builtins' }],
    [at('file:///elsewhere/x.js'), { kind: 'other', name: 'file:///elsewhere/x.js' }],
  ])('%j is %j', (frame, origin) => {
    expect(originOf(frame)).toEqual(origin);
  });
});

describe('labelOf', () => {
  it('names a bench-built bundle as build:dist writes it, with the line', () => {
    expect(labelOf(at(`file://${SERVICE_BUNDLE_DIR}/gateway.mjs`, 'route'))).toBe(
      'route dist/gateway.mjs:42',
    );
  });
});
