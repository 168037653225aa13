import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Reads a whole HTTP/1.1 response (the connection closes after it), skipping any 1xx. */
function parseResponse(data: Buffer): RawResponse | null {
  let rest = data;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return null;
    const [statusLine, ...lines] = rest.subarray(0, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? NaN);
    if (Number.isNaN(status)) return null;
    rest = rest.subarray(end + 4);
    if (status >= 100 && status < 200) continue;
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    let body = rest;
    if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
      const chunks: Buffer[] = [];
      let at = 0;
      for (;;) {
        const lineEnd = body.indexOf('\r\n', at);
        if (lineEnd < 0) break;
        const size = parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
        if (!(size > 0)) break;
        chunks.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
        at = lineEnd + 2 + size + 2;
      }
      body = Buffer.concat(chunks);
    } else if (headers['content-length'] !== undefined) {
      body = body.subarray(0, Number(headers['content-length']));
    }
    return { status, headers, body };
  }
}

/**
 * One request written byte for byte on its own connection (`Connection: close`): header values
 * and bodies no HTTP client library would let through. Resolves with the response, or with why
 * there was none (the connection reset or closed without an answer, or no answer in `timeoutMs`).
 */
export function rawRequest(
  port: number,
  head: string,
  body: Buffer,
  timeoutMs: number,
): Promise<RawResponse | { failure: string }> {
  return new Promise((done) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: '127.0.0.1', port });
    let settled = false;
    const finish = (why: string) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      clearTimeout(timer);
      done(parseResponse(Buffer.concat(chunks)) ?? { failure: why });
    };
    const timer = setTimeout(() => finish(`no answer in ${timeoutMs} ms`), timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => finish('connection closed without an answer'));
    socket.on('close', () => finish('connection closed without an answer'));
    // A server may answer (413, 400) and close before reading a big body: the answer still counts.
    socket.on('error', (error: NodeJS.ErrnoException) => finish(`connection error ${error.code ?? error.message}`));
    // Never half-closed: a server that sees the client's end abandons the request unanswered.
    socket.write(Buffer.concat([Buffer.from(head, 'latin1'), body]));
  });
}
