import { BoundedMap } from './bounded-map';

/**
 * The last TLS session (ticket) each MX host gave us, so that the next STARTTLS with a host seen
 * before resumes it instead of a full handshake (no certificate to send, sign and parse). Bounded:
 * past `maxHosts` the host heard from longest ago goes; a ticket that failed is dropped.
 */
export class TlsSessionCache extends BoundedMap<Buffer> {
  constructor(maxHosts = 1_000) {
    super(maxHosts);
  }
}
