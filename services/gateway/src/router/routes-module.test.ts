import { describe, expect, it } from 'vitest';
import { Example } from '../handlers/example.js';
import { HANDLER_CLASSES } from '../routes.js';
import { routesFromModule } from './routes-module.js';

describe('routesFromModule: roles', () => {
  it("carries a route's roles, none by default", () => {
    const [withRoles, without] = routesFromModule(
      [
        ['GET', 'reports', Example, 'test', { roles: ['reporter'] }],
        ['GET', 'ping', Example, 'ping'],
      ],
      HANDLER_CLASSES,
    );
    expect(withRoles?.roles).toEqual(['reporter']);
    expect(without?.roles).toEqual([]);
  });

  it('refuses roles on a route without auth', () => {
    expect(() =>
      routesFromModule([['GET', 'x', Example, 'ping', { auth: false, roles: ['a'] }]], HANDLER_CLASSES),
    ).toThrow('routes: GET x: roles need auth');
  });
});
