/**
 * The last TLS session (ticket) each MX host gave us, so that the next STARTTLS with a host seen
 * before resumes it instead of a full handshake (no certificate to send, sign and parse). Bounded:
 * past `maxHosts` the host heard from longest ago goes; a ticket that failed is dropped.
 */
export class TlsSessionCache {
  private readonly sessions = new Map<string, Buffer>();

  constructor(private readonly maxHosts = 1_000) {}

  get(host: string): Buffer | undefined {
    return this.sessions.get(host);
  }

  set(host: string, session: Buffer): void {
    this.sessions.delete(host);
    // Maps keep insertion order: the first key is the host heard from longest ago.
    if (this.sessions.size >= this.maxHosts) this.sessions.delete(this.sessions.keys().next().value as string);
    this.sessions.set(host, session);
  }

  delete(host: string): void {
    this.sessions.delete(host);
  }

  get size(): number {
    return this.sessions.size;
  }
}
