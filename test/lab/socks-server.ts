import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A small SOCKS5 proxy (RFC 1928, CONNECT only; RFC 1929 user/password when credentials are set),
 * so the prober's SMTP_PROXY path runs against a real proxy.
 */
export class LabSocksServer {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  /** CONNECT requests served, as `host:port`. */
  readonly connects: string[] = [];

  constructor(
    readonly host: string,
    readonly port: number,
    private readonly credentials: { username: string; password: string } | null,
  ) {}

  get url(): string {
    const auth = this.credentials ? `${encodeURIComponent(this.credentials.username)}:${encodeURIComponent(this.credentials.password)}@` : '';
    return `socks5://${auth}${this.host}:${this.port}`;
  }

  async start(): Promise<void> {
    const server = createServer((client) => this.handle(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, this.host, () => resolve());
    });
    this.server = server;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private handle(client: Socket): void {
    this.sockets.add(client);
    client.on('close', () => this.sockets.delete(client));
    client.on('error', () => client.destroy());
    let buffer = Buffer.alloc(0);
    let stage: 'greeting' | 'auth' | 'request' = 'greeting';
    const onData = (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (stage === 'greeting') {
        if (buffer.length < 2 || buffer.length < 2 + buffer[1]) return;
        const methods = [...buffer.subarray(2, 2 + buffer[1])];
        buffer = buffer.subarray(2 + buffer[1]);
        const wanted = this.credentials ? 0x02 : 0x00;
        if (buffer.length > 0 || !methods.includes(wanted)) return void client.end(Buffer.from([0x05, 0xff]));
        client.write(Buffer.from([0x05, wanted]));
        stage = this.credentials ? 'auth' : 'request';
        return;
      }
      if (stage === 'auth') {
        if (buffer.length < 2) return;
        const userLength = buffer[1];
        if (buffer.length < 3 + userLength || buffer.length < 3 + userLength + buffer[2 + userLength]) return;
        const username = buffer.subarray(2, 2 + userLength).toString();
        const password = buffer.subarray(3 + userLength, 3 + userLength + buffer[2 + userLength]).toString();
        buffer = Buffer.alloc(0);
        const ok = username === this.credentials?.username && password === this.credentials?.password;
        client.write(Buffer.from([0x01, ok ? 0x00 : 0x01]));
        if (!ok) return void client.end();
        stage = 'request';
        return;
      }
      if (buffer.length < 5) return;
      const type = buffer[3];
      const addressLength = type === 0x01 ? 4 : type === 0x04 ? 16 : 1 + buffer[4];
      if (buffer.length < 4 + addressLength + 2) return;
      let host: string;
      if (type === 0x01) host = [...buffer.subarray(4, 8)].join('.');
      else if (type === 0x03) host = buffer.subarray(5, 5 + buffer[4]).toString();
      else return void client.end(Buffer.from([0x05, 0x08, 0x00, 0x01, 0, 0, 0, 0, 0, 0]));
      const port = buffer.readUInt16BE(4 + addressLength);
      client.off('data', onData);
      this.connects.push(`${host}:${port}`);
      const upstream = connect({ host, port }, () => {
        client.write(Buffer.from([0x05, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0]));
        client.pipe(upstream).pipe(client);
      });
      this.sockets.add(upstream);
      upstream.on('close', () => {
        this.sockets.delete(upstream);
        client.destroy();
      });
      upstream.on('error', () => client.end(Buffer.from([0x05, 0x05, 0x00, 0x01, 0, 0, 0, 0, 0, 0])));
    };
    client.on('data', onData);
  }
}
