import { createServer, type Server, type Socket } from 'node:net';

/** A TCP server of the lab on one address: listens, tracks its connections, and closes them all on stop. */
export class TcpListener {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();

  constructor(private readonly onConnection: (socket: Socket) => void) {}

  async listen(port: number, host: string): Promise<void> {
    const server = createServer((socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      this.onConnection(socket);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    this.server = server;
  }

  /** The port it listens on (the one given, or the one picked for port 0). */
  get port(): number {
    const address = this.server?.address();
    return address && typeof address === 'object' ? address.port : 0;
  }

  /** Also tracks connections the handler opened itself (a proxy's upstream). */
  track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
