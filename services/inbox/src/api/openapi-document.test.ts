import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from './openapi-schemas.js';
import { buildOpenApiDocument, OPENAPI_METHODS } from './openapi-document.js';

describe('the OpenAPI document', () => {
  const doc = buildOpenApiDocument({ cookieName: 'portcullis_session' });

  it('is a valid OpenAPI 3.1 document whose every $ref resolves', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('names every operation once and answers every error with the one error schema', () => {
    const ids: string[] = [];
    for (const item of Object.values(doc.paths)) {
      for (const method of OPENAPI_METHODS) {
        const op = item[method];
        if (!op) continue;
        ids.push(op.operationId);
        for (const [status, response] of Object.entries(op.responses)) {
          if (Number(status) >= 400) {
            expect(response).toEqual({ $ref: `#/components/responses/E${status}` });
          }
        }
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('lists each error code once', () => {
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
  });

  it('names the configured session cookie', () => {
    const other = buildOpenApiDocument({ cookieName: 'inbox_sid' });
    expect(other.components).toMatchObject({
      securitySchemes: { sessionCookie: { type: 'apiKey', in: 'cookie', name: 'inbox_sid' } },
    });
  });
});
