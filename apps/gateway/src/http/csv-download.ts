import { PassThrough, type Writable } from 'node:stream';
import type { FastifyReply } from 'fastify';

/**
 * Streams a CSV download through Fastify's reply: `write` fills the stream at the pace the client
 * reads it (its writes wait on back-pressure, and stop once the client is gone: Fastify destroys the
 * stream). A failure part-way ends the response cut short; the client sees a broken download.
 */
export async function sendCsv(
  reply: FastifyReply,
  filename: string,
  write: (out: Writable) => Promise<void>,
): Promise<void> {
  const out = new PassThrough();
  void reply
    .code(200)
    .type('text/csv; charset=utf-8')
    .header('Content-Disposition', `attachment; filename="${filename}"`)
    .send(out);
  try {
    await write(out);
    out.end();
  } catch (error) {
    out.destroy(error as Error);
  }
}
