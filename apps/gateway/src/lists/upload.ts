import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { Request } from 'express';
import { AppError, assertPlainText } from '@mailguard/errors';

export const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;
const MAX_FIELDS = 20;
const MAX_FIELD_BYTES = 64 * 1024;
/** The most a valid upload can weigh: the file, every field, and room for part headers and boundaries. */
export const MAX_UPLOAD_REQUEST_BYTES = MAX_UPLOAD_BYTES + MAX_FIELDS * MAX_FIELD_BYTES + 64 * 1024;

export interface Upload {
  /** The file on disk, or null when the request had no `file` part. */
  path: string | null;
  filename: string | null;
  fields: Record<string, string>;
  /** Removes the temporary file. */
  cleanup(): Promise<void>;
}

/**
 * Receives a multipart upload, streaming the `file` part to a temporary file (never into memory)
 * so that the CSV can be read once every field is known, whatever their order in the request.
 * Over 50 MB → 413, as soon as the limit is crossed.
 */
export async function receiveUpload(req: Request): Promise<Upload> {
  if (!/^multipart\/form-data/i.test(req.headers['content-type'] ?? '')) {
    throw new AppError('bad_request', 'Send the list as multipart/form-data with the CSV in a part named "file"');
  }
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: MAX_FIELDS, fieldSize: MAX_FIELD_BYTES },
    });
  } catch (error) {
    // No boundary, an unknown charset: refused before anything is read or written.
    req.resume();
    throw new AppError('bad_request', `The upload is not valid multipart/form-data: ${(error as Error).message}`);
  }
  const dir = await mkdtemp(join(tmpdir(), 'mailguard-upload-'));
  const cleanup = () => rm(dir, { recursive: true, force: true });
  // Every write is awaited on every path: a file part cut short fails its write too, and an
  // unawaited failure would be an unhandled rejection (the end of the process).
  const writes: Array<Promise<unknown>> = [];
  try {
    const fields: Record<string, string> = {};
    let path: string | null = null;
    let filename: string | null = null;
    let tooLarge = false;
    parser.on('field', (name, value) => {
      fields[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      if (name !== 'file' || path) {
        // A part we drop still fails when the form is cut short; the form's own error answers for it.
        stream.on('error', () => undefined).resume();
        return;
      }
      path = join(dir, 'upload.csv');
      filename = info.filename ?? null;
      stream.on('limit', () => {
        tooLarge = true;
      });
      writes.push(pipeline(stream, createWriteStream(path)));
    });
    await new Promise<void>((resolve, reject) => {
      parser.on('close', resolve);
      parser.on('error', (error: Error) =>
        reject(new AppError('bad_request', `The upload is not valid multipart/form-data: ${error.message}`)),
      );
      req.on('error', reject);
      req.pipe(parser);
    });
    await Promise.all(writes);
    if (tooLarge)
      throw new AppError('payload_too_large', `The file is larger than ${MAX_UPLOAD_BYTES / 1024 / 1024} MB`);
    for (const [name, value] of Object.entries(fields)) assertPlainText(name, value);
    if (filename !== null) assertPlainText('the file name', filename);
    return { path, filename, fields, cleanup };
  } catch (error) {
    // The rest of a refused upload is read and dropped, so the client gets its answer.
    req.unpipe(parser);
    req.resume();
    await Promise.allSettled(writes);
    await cleanup();
    throw error;
  }
}
