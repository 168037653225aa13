import { connect, type Socket } from 'node:net';
import { TcpListener } from './tcp-listener';

/**
 * A small SOCKS5 proxy (RFC 1928, CONNECT only; RFC 1929 user/password when credentials are set),
 * so the prober's SMTP_PROXY path runs against a real proxy.
 */
export class LabSocksServer {
  private readonly listener = new TcpListener((client) => this.handle(client));
  /** CONNECT requests served, as `host:port`. */
  readonly connects: string[] = [];

  constructor(
    readonly host: string,
    readonly port: number,
    private readonly credentials: { username: string; password: string } | null,
    /** `outboundAddress`: the source address of upstream connections, the proxy's exit address as servers see it. */
    private readonly options: { outboundAddress?: string } = {},
  ) {}

  get url(): string {
    const auth = this.credentials
      ? `${encodeURIComponent(this.credentials.username)}:${encodeURIComponent(this.credentials.password)}@`
      : '';
    return `socks5://${auth}${this.host}:${this.port}`;
  }

  start(): Promise<void> {
    return this.listener.listen(this.port, this.host);
  }

  stop(): Promise<void> {
    return this.listener.close();
  }

  private handle(client: Socket): void {
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
      const upstream = connect({ host, port, localAddress: this.options.outboundAddress }, () => {
        client.write(Buffer.from([0x05, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0]));
        client.pipe(upstream).pipe(client);
      });
      this.listener.track(upstream);
      upstream.on('close', () => client.destroy());
      upstream.on('error', () => client.end(Buffer.from([0x05, 0x05, 0x00, 0x01, 0, 0, 0, 0, 0, 0])));
    };
    client.on('data', onData);
  }
}
