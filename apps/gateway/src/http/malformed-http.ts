import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

/** The answer Node's parser would give, as `{error, code}` like every other error of the API (API.md §7). */
function answer(socket: Duplex, status: number, reason: string, error: string): void {
  const body = JSON.stringify({ error, code: 'bad_request' });
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

/**
 * Requests Node refuses before any middleware sees them (not HTTP/1.1, headers over the size
 * limit, an Expect it cannot meet) get a JSON error body too, instead of Node's empty one.
 */
export function answerMalformedHttp(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // Nobody left to answer, or an answer already under way: only close.
    if (err.code === 'ECONNRESET' || !socket.writable || (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent) {
      socket.destroy();
      return;
    }
    if (err.code === 'HPE_HEADER_OVERFLOW') answer(socket, 431, 'Request Header Fields Too Large', 'The request headers are larger than the server accepts');
    else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') answer(socket, 408, 'Request Timeout', 'The request did not arrive in time');
    else answer(socket, 400, 'Bad Request', 'The request is not valid HTTP/1.1');
  });
  server.on('checkExpectation', (_req, res) => {
    res.writeHead(417, { 'Content-Type': 'application/json; charset=utf-8', Connection: 'close' }).end(JSON.stringify({ error: 'Only Expect: 100-continue is understood', code: 'bad_request' }));
  });
}
