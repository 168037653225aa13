import { connect } from 'node:net';

/** Whether nothing listens on the port (a connection is refused); settles once the probe's own socket is closed. */
export function refused(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    let connected = false;
    socket.once('connect', () => {
      connected = true;
      socket.destroy();
    });
    socket.once('error', () => undefined);
    socket.once('close', () => done(!connected));
  });
}
