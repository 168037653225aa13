import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';

export interface HeardRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What the listener answers; by default 204. Every answer closes its connection, so each request is a connection of its own. */
export type Respond = (request: HeardRequest, response: ServerResponse) => void;

/**
 * An HTTP listener that records every connection and request reaching it: the webhook receiver, or
 * the loopback port an SSRF test asserts never hears from MailGuard.
 */
export class HttpListener {
  readonly heard: HeardRequest[] = [];
  /** TCP connections accepted, whether or not a request came over them. */
  connections = 0;

  private constructor(
    private readonly server: Server,
    readonly host: string,
    readonly port: number,
  ) {}

  static async start(
    host: string,
    port = 0,
    respond: Respond = (_, response) => response.writeHead(204).end(),
  ): Promise<HttpListener> {
    let listener: HttpListener | null = null;
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const heard = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
        listener?.heard.push(heard);
        res.setHeader('connection', 'close');
        respond(heard, res);
      });
    });
    server.on('connection', () => listener && listener.connections++);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    listener = new HttpListener(server, host, (server.address() as { port: number }).port);
    return listener;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
