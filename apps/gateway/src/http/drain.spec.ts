import { once } from 'node:events';
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpDrain } from './drain';
import { refused } from '../../../../test/support/ports';

/** A request on `agent`: its status, its Connection header and its body. */
function get(port: number, path: string, agent: Agent): Promise<{ status: number; connection: string; body: string }> {
  return new Promise((resolve, reject) => {
    request({ port, host: '127.0.0.1', path, agent }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection ?? '', body }));
    })
      .once('error', reject)
      .end();
  });
}

/** 'settled' when `promise` has settled by the next turn of the event loop, else 'pending'. */
function state(promise: Promise<unknown>): Promise<'settled' | 'pending'> {
  return Promise.race([
    promise.then(() => 'settled' as const),
    new Promise<'pending'>((resolve) => setImmediate(() => resolve('pending'))),
  ]);
}

/**
 * A server answering `/fast` at once, in its own listener (before the drain's is prepended), and holding
 * `/slow` until the test lets it go.
 */
function serve() {
  const held: ServerResponse[] = [];
  let arrived = () => undefined as void;
  const slowArrived = new Promise<void>((resolve) => (arrived = resolve));
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.url === '/slow') {
      held.push(res);
      arrived();
      return;
    }
    res.end('fast');
  });
  return { server, held, slowArrived };
}

describe('the drain of the API server', () => {
  it('serves on during the delay with Connection: close, then refuses connections and answers every request in flight', async () => {
    const { server, held, slowArrived } = serve();
    const readiness = { drained: 0, drain: () => void readiness.drained++ };
    const drain = new HttpDrain();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    drain.watch(server, readiness);
    const { port } = server.address() as AddressInfo;
    const agent = new Agent({ keepAlive: true });
    try {
      // Before: connections are kept alive, and one sits idle in the agent's pool.
      expect(await get(port, '/fast', agent)).toMatchObject({ status: 200, connection: 'keep-alive' });
      const idle = Object.values(agent.freeSockets).flat()[0];
      expect(idle).toBeDefined();
      const idleClosed = once(idle!, 'close');
      const slow = get(port, '/slow', new Agent({ keepAlive: true }));
      await slowArrived;
      expect(drain.requestsInFlight).toBe(1);

      drain.begin();
      expect(readiness.drained).toBe(1);
      // The delay: requests are still served, each closing its connection; new connections are taken.
      expect(await get(port, '/fast', new Agent({ keepAlive: true }))).toEqual({
        status: 200,
        connection: 'close',
        body: 'fast',
      });
      expect(await refused(port)).toBe(false);

      const finished = drain.finish();
      expect(await refused(port)).toBe(true);
      // The idle kept-alive connection is closed; the request in flight holds the drain open.
      await idleClosed;
      expect(await state(finished)).toBe('pending');
      held[0].end('slow');
      expect(await slow).toEqual({ status: 200, connection: 'close', body: 'slow' });
      await finished;
      expect(drain.requestsInFlight).toBe(0);
      expect(server.listening).toBe(false);
      // Once only: a second drain (Nest closes the server again) has nothing left to do.
      await drain.finish();
      expect(readiness.drained).toBe(1);
    } finally {
      agent.destroy();
      server.closeAllConnections();
      server.close();
    }
  });

  it('does nothing for a server it never watched (an app closed before it listened)', async () => {
    await expect(new HttpDrain().finish()).resolves.toBeUndefined();
  });
});
