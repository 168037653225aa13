import type { Socket } from 'node:net';
import * as packet from 'dns-packet';
import type { Packet, Question } from 'dns-packet';

/**
 * One DNS query over a TCP stream (RFC 1035 §4.2.2 framing): a connection of its own from a bound
 * address, or one through a proxy. The socket is destroyed once the answer is in.
 */
export function queryOverTcp(socket: Socket, question: Question, id = 7): Promise<Packet> {
  return new Promise((resolve, reject) => {
    let buffer = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (buffer.length >= 2 && buffer.length >= 2 + buffer.readUInt16BE(0)) {
        socket.destroy();
        resolve(packet.streamDecode(buffer));
      }
    });
    socket.on('error', reject);
    socket.write(packet.streamEncode({ type: 'query', id, flags: packet.RECURSION_DESIRED, questions: [question] }));
  });
}
