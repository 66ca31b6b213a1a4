// The forward target, in its own process: a plain node:http server that reads each request's body and
// answers 200 with none. `GET /received?atLeast=<n>` is not counted: it answers `{"count":…}` once that many
// requests have arrived (at once for 0), so the bench learns when the last one came without polling. A request
// with `?seq=<n>` has its first arrival noted (epoch ms, as `performance.timeOrigin + performance.now()`);
// `GET /arrivals` answers them as `{"<n>": ms, …}`. Prints `{"port":…}` once listening.
import { createServer, type ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';

let received = 0;
const arrivals = new Map<string, number>();
const waiting: Array<{ atLeast: number; res: ServerResponse }> = [];

const answerCount = (res: ServerResponse): void => {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ count: received }));
};

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://target');
  if (req.method === 'GET' && url.pathname === '/received') {
    const atLeast = Number(url.searchParams.get('atLeast') ?? '0');
    if (received >= atLeast) answerCount(res);
    else waiting.push({ atLeast, res });
    return;
  }
  if (req.method === 'GET' && url.pathname === '/arrivals') {
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify(Object.fromEntries(arrivals)));
    return;
  }
  const seq = url.searchParams.get('seq');
  if (seq !== null && !arrivals.has(seq)) arrivals.set(seq, performance.timeOrigin + performance.now());
  req.resume();
  req.on('end', () => {
    received += 1;
    res.writeHead(200).end();
    for (let i = waiting.length - 1; i >= 0; i--) {
      const w = waiting[i];
      if (w && received >= w.atLeast) {
        waiting.splice(i, 1);
        answerCount(w.res);
      }
    }
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(
    `${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`,
  );
});
