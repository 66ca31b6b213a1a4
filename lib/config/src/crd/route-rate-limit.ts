import { RATE_LIMIT_UNITS, type RateLimitUnit } from '../rate-limit-types.js';
import { UINT32_MAX, type ConfigPath, type Reader } from '../reader.js';
import { bool, int, list, obj, rule, str, unitSpellings, type Schema } from './schema.js';

/** Where a route's rate-limit descriptor takes its value from. */
export const DESCRIPTOR_SOURCES = [
  'remoteAddress',
  'header',
  'claim',
  'pathParam',
  'query',
  'user',
  'app',
  'role',
] as const;
/** The sources that take no `name`: the value is the request's or the caller's own. */
export const UNNAMED_DESCRIPTOR_SOURCES: readonly DescriptorSource[] = [
  'remoteAddress',
  'user',
  'app',
  'role',
];
export type DescriptorSource = (typeof DESCRIPTOR_SOURCES)[number];

export interface RouteRateLimit {
  requestsPerUnit: number;
  unit: RateLimitUnit;
  shadowMode: boolean;
  descriptors: Array<{ key: string; from: DescriptorSource; name: string }>;
}

/** An ApiRoute route's `rateLimit`, as `readRouteRateLimit` reads it. */
export const routeRateLimitSchema: Schema = obj(
  {
    requestsPerUnit: int({ minimum: 0, maximum: UINT32_MAX }),
    unit: str({ enum: unitSpellings(RATE_LIMIT_UNITS) }),
    shadowMode: bool(),
    descriptors: list(
      obj(
        {
          key: str({ minLength: 1 }),
          from: str({ enum: [...DESCRIPTOR_SOURCES], maxLength: 16 }),
          name: str({
            maxLength: 256,
            description: 'Header, claim, path or query parameter name, for those sources.',
          }),
        },
        {
          required: ['key', 'from'],
          'x-kubernetes-validations': [
            rule(
              `self.from in [${UNNAMED_DESCRIPTOR_SOURCES.map((s) => `'${s}'`).join(', ')}] || has(self.name)`,
              'name is required for header, claim, pathParam and query sources',
            ),
          ],
        },
      ),
      { maxItems: 8 },
    ),
  },
  { required: ['requestsPerUnit', 'unit'] },
);

export function readRouteRateLimit(read: Reader, v: unknown, path: ConfigPath): RouteRateLimit | undefined {
  const m = read.map(v, path, new Set(['requestsPerUnit', 'unit', 'shadowMode', 'descriptors']));
  if (!m) return undefined;
  const unitText = (read.str(m.unit, [...path, 'unit']) ?? '').toUpperCase();
  const unit = RATE_LIMIT_UNITS.find((u) => u === unitText);
  if (!unit)
    return read.fail([...path, 'unit'], `expected one of ${RATE_LIMIT_UNITS.join(', ').toLowerCase()}`);
  const descriptors = read.list(m.descriptors, [...path, 'descriptors']).flatMap((d, i) => {
    const at = [...path, 'descriptors', i];
    const dm = read.map(d, at, new Set(['key', 'from', 'name'])) ?? {};
    const key = read.str(dm.key, [...at, 'key']) ?? '';
    if (key === '') read.fail([...at, 'key'], 'descriptor has empty key');
    const fromText = read.str(dm.from, [...at, 'from']) ?? '';
    const from = DESCRIPTOR_SOURCES.find((s) => s === fromText);
    if (!from) return read.fail([...at, 'from'], `expected one of ${DESCRIPTOR_SOURCES.join(', ')}`, []);
    const name = read.str(dm.name, [...at, 'name']) ?? '';
    if (name === '' && !UNNAMED_DESCRIPTOR_SOURCES.includes(from))
      read.fail([...at, 'name'], `a ${from} source needs a name`);
    return [{ key, from, name }];
  });
  return {
    requestsPerUnit: read.uint32(m.requestsPerUnit, [...path, 'requestsPerUnit']),
    unit,
    shadowMode: read.bool(m.shadowMode, [...path, 'shadowMode']),
    descriptors,
  };
}
