import { createServer, type Server } from 'node:http';
import type { World } from './world';

/** 1×1 transparent PNG, what an avatar service returns for a found avatar. */
const PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

/**
 * RDAP (`/domain/<name>`, RFC 9083 shape with a registration event) and a Gravatar-like avatar
 * service (`/avatar/<sha256>?d=404`) in one HTTP server of the lab.
 */
export class LabHttpServer {
  private server: Server | null = null;
  requests = 0;

  constructor(
    private readonly world: World,
    readonly host: string,
    readonly port: number,
    private readonly latencyMs: number,
  ) {}

  get baseUrl(): string {
    return `http://${this.host}:${this.port}`;
  }

  async start(): Promise<void> {
    const server = createServer((req, res) => {
      this.requests++;
      const url = new URL(req.url ?? '/', this.baseUrl);
      const respond = () => {
        const domain = /^\/domain\/([^/]+)$/.exec(url.pathname);
        if (req.method === 'GET' && domain) {
          const name = decodeURIComponent(domain[1]).toLowerCase();
          const registered = this.world.registered(name);
          if (!registered) {
            res.writeHead(404, { 'content-type': 'application/rdap+json' });
            res.end(
              JSON.stringify({ errorCode: 404, title: 'Not Found', description: [`${name} is not registered here`] }),
            );
            return;
          }
          res.writeHead(200, { 'content-type': 'application/rdap+json' });
          res.end(
            JSON.stringify({
              objectClassName: 'domain',
              ldhName: name.toUpperCase(),
              status: ['active'],
              events: [
                { eventAction: 'registration', eventDate: registered },
                { eventAction: 'last update of RDAP database', eventDate: new Date().toISOString() },
              ],
            }),
          );
          return;
        }
        const avatar = /^\/avatar\/([0-9a-f]{64})$/i.exec(url.pathname);
        if (req.method === 'GET' && avatar) {
          if (this.world.hasAvatar(avatar[1])) {
            res.writeHead(200, { 'content-type': 'image/png', 'content-length': PIXEL.length });
            res.end(PIXEL);
          } else {
            res.writeHead(404, { 'content-type': 'text/plain' });
            res.end('Not Found');
          }
          return;
        }
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('Not Found');
      };
      if (this.latencyMs > 0) setTimeout(respond, this.latencyMs);
      else respond();
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, this.host, () => resolve());
    });
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
