import { EventEmitter } from 'node:events';
import { createServer, connect, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a server that forwards everything until, once armed, a client's bytes
 * match `pattern`; then it holds that connection's bytes from the match on, forever: what a client
 * sees of a server that stops answering one connection mid-command. Each distinct match, on a
 * held connection too, is a `'match'` event with the matched text.
 */
export interface StallingProxy {
  url: string;
  events: EventEmitter;
  /** From now on a match holds its connection. */
  arm(): void;
  /** Resolves with the distinct matches once `count` of them were seen. */
  matches(count: number): Promise<string[]>;
  close(): Promise<void>;
}

export async function startStallingProxy(target: URL, pattern: RegExp): Promise<StallingProxy> {
  const events = new EventEmitter();
  const seen = new Set<string>();
  const sockets = new Set<Socket>();
  let armed = false;
  const global = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      // Either side going away ends both; a reset is not the test's failure.
      socket.on('error', () => undefined);
      socket.on('close', () => (socket === client ? upstream : client).destroy());
    }
    upstream.pipe(client);
    let text = '';
    let held = false;
    client.on('data', (chunk: Buffer) => {
      // Latin-1 keeps one character per byte: positions in the text are positions in the bytes.
      if (!armed) {
        upstream.write(chunk);
        return;
      }
      const offset = text.length;
      text += chunk.toString('latin1');
      let stallAt: number | null = null;
      for (const match of text.matchAll(global)) {
        if (!seen.has(match[0])) {
          seen.add(match[0]);
          events.emit('match', match[0]);
        }
        stallAt ??= Math.max(0, match.index - offset);
      }
      if (!held) {
        upstream.write(stallAt === null ? chunk : chunk.subarray(0, stallAt));
        held = stallAt !== null;
      }
      // A match split across chunks is found in the next one: only a tail that could begin one is kept.
      text = text.slice(-256);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const url = new URL(target.toString());
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    events,
    arm: () => (armed = true),
    matches: (count) =>
      new Promise((resolve) => {
        const check = () => {
          if (seen.size < count) return;
          events.off('match', check);
          resolve([...seen]);
        };
        events.on('match', check);
        check();
      }),
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
