import type { FastifyRequest } from 'fastify';
import { type HttpApp, NotFoundError, withSpan } from '@portcullis/kit';
import type { InboxContext } from '../context.js';
import type { DeadLetterJson } from '../contract/forwarding-json.js';
import { CaptureBeingForwardedError } from '../errors.js';
import { isStreamId } from '../contract/stream-id.js';
import {
  MAX_DEAD_LETTERS_PER_ENDPOINT,
  type RedriveResult,
  type StoredDeadLetter,
} from '../forwarding-store/dead-letters.js';
import type { ForwardingState } from '../forwarding-store/forwarding-state.js';
import type { Authorize } from '../accounts/access.js';
import { MAX_PAGE_SIZE, readPage } from './endpoint-routes.js';

type Params = { Params: { id: string } };
type LetterParams = { Params: { id: string; dlqId: string } };
type PageQuery = { Querystring: Record<string, string | undefined> };

/**
 * An endpoint's forwarding troubles, for whoever may read it (access.ts: managed endpoints with the admin
 * token): its dead letters, paged, redriven one or all; and the circuit breakers its forwarders hold open.
 */
export function registerDeadLetterRoutes(
  app: HttpApp,
  ctx: InboxContext,
  guards: { authorize: Authorize; forwarding: ForwardingState },
): void {
  const { deadLetters, circuitReports } = guards.forwarding;
  const traced = <T>(name: string, fn: () => Promise<T>): Promise<T> =>
    withSpan('portcullis-inbox', name, () => fn());
  const view = ({ endpointId: _endpointId, ...letter }: StoredDeadLetter): DeadLetterJson => ({
    ...letter,
    attempts: Number(letter.attempts),
  });
  const redrive = async (letter: StoredDeadLetter): Promise<RedriveResult> => {
    const result = await deadLetters.redrive(letter);
    ctx.log.info(
      { endpointId: letter.endpointId, requestId: letter.requestId, result },
      'dead letter redrive',
    );
    return result;
  };

  app.get<Params & PageQuery>('/api/endpoints/:id/dead-letters', (request) =>
    traced('inbox list dead letters', async () => {
      const endpoint = await guards.authorize(request, request.params.id);
      const { limit, before } = readPage(request.query);
      const page = await deadLetters.list(endpoint.id, { limit: limit + 1, ...(before ? { before } : {}) });
      const shown = page.slice(0, limit);
      return {
        deadLetters: shown.map(view),
        nextBefore: page.length > limit ? (shown.at(-1)?.id ?? null) : null,
      };
    }),
  );

  app.post<LetterParams>(
    '/api/endpoints/:id/dead-letters/:dlqId/redrive',
    (request: FastifyRequest<LetterParams>) =>
      traced('inbox redrive dead letter', async () => {
        const endpoint = await guards.authorize(request, request.params.id);
        const id = request.params.dlqId;
        const letter = isStreamId(id) ? await deadLetters.get(endpoint.id, id) : undefined;
        if (!letter) throw new NotFoundError('no such dead letter');
        const result = await redrive(letter);
        if (result === 'missing') throw new NotFoundError('no such dead letter');
        if (result === 'gone') throw new NotFoundError('the capture is no longer kept: dead letter removed');
        if (result === 'busy') {
          throw new CaptureBeingForwardedError(
            'the capture is being forwarded to another of its targets: redrive it once that is done',
          );
        }
        return { redriven: view(letter) };
      }),
  );

  // every letter kept (at most 1,000 per endpoint), oldest first, a page at a time
  app.post<Params>('/api/endpoints/:id/dead-letters/redrive', (request) =>
    traced('inbox redrive dead letters', async () => {
      const endpoint = await guards.authorize(request, request.params.id);
      const counts: Record<RedriveResult, number> = { redriven: 0, busy: 0, gone: 0, missing: 0 };
      const letters: StoredDeadLetter[] = [];
      let before: string | undefined;
      do {
        const page = await deadLetters.list(endpoint.id, {
          limit: MAX_PAGE_SIZE,
          ...(before ? { before } : {}),
        });
        letters.push(...page);
        before = page.length === MAX_PAGE_SIZE ? page.at(-1)?.id : undefined;
      } while (before !== undefined && letters.length < MAX_DEAD_LETTERS_PER_ENDPOINT);
      for (const letter of letters.reverse()) counts[await redrive(letter)] += 1;
      return counts;
    }),
  );

  app.get<Params>('/api/endpoints/:id/circuits', (request) =>
    traced('inbox list circuits', async () => {
      const endpoint = await guards.authorize(request, request.params.id);
      return { circuits: await circuitReports.read(endpoint.id) };
    }),
  );
}
