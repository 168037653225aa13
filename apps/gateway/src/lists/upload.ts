import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { finished, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Inject, Injectable } from '@nestjs/common';
import busboy from 'busboy';
import { APP_CONFIG, type AppConfig, type UploadConfig } from '@mailguard/config';
import { AppError, assertPlainText } from '@mailguard/errors';

export const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;
const MAX_FIELDS = 20;
const MAX_FIELD_BYTES = 64 * 1024;
/** The most a valid upload can weigh: the file, every field, and room for part headers and boundaries. */
export const MAX_UPLOAD_REQUEST_BYTES = MAX_UPLOAD_BYTES + MAX_FIELDS * MAX_FIELD_BYTES + 64 * 1024;

/** Staging folders are `<tmpdir>/mailguard-uploads-<pid>`: one left behind names the process that left it. */
export const STAGING_PREFIX = 'mailguard-uploads-';

/**
 * This process's own staging folder (one sub-folder per upload), so that what it stages can be
 * counted and nothing of another process is touched.
 */
export const STAGING_DIR = join(tmpdir(), `${STAGING_PREFIX}${process.pid}`);

interface Usage {
  uploads: number;
  bytes: number;
}

/** One upload's share of the staging limits, held until `release`. */
class StagingTicket {
  private bytes = 0;
  private released = false;

  constructor(
    private readonly limits: UploadConfig,
    private readonly account: Usage,
    private readonly process: Usage,
    private readonly onRelease: () => void,
  ) {}

  /** Counts staged bytes; 429 or 503 past the account's or the process's limit. */
  add(bytes: number): void {
    this.bytes += bytes;
    this.account.bytes += bytes;
    this.process.bytes += bytes;
    if (this.account.bytes > this.limits.maxBytesPerAccount)
      throw new AppError('rate_limited', 'This account is staging too much upload data at once: retry when one ends', {
        retryAfterSeconds: 10,
      });
    if (this.process.bytes > this.limits.maxStagedBytes)
      throw new AppError('unavailable', 'The gateway is staging too much upload data: retry shortly', {
        retryAfterSeconds: 10,
      });
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.account.uploads--;
    this.account.bytes -= this.bytes;
    this.process.uploads--;
    this.process.bytes -= this.bytes;
    this.onRelease();
  }
}

interface Staged {
  dir: string;
  ticket: StagingTicket;
  /** Removes the folder and gives back its share of the limits; safe to call twice. */
  cleanup(): Promise<void>;
}

export interface Upload {
  /** The file on disk, or null when the request had no `file` part. */
  path: string | null;
  filename: string | null;
  fields: Record<string, string>;
  /** Removes the temporary file. */
  cleanup(): Promise<void>;
}

/**
 * Stages list uploads on disk under the limits of UploadConfig (what is staged at once by an
 * account and by this process), for POST /v1/lists and MCP create_list alike.
 */
@Injectable()
export class UploadStaging {
  private readonly limits: UploadConfig;
  private readonly process: Usage = { uploads: 0, bytes: 0 };
  private readonly accounts = new Map<string, Usage>();

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.limits = config.uploads;
  }

  /** A staging folder for one upload of the account, or 429/503 past the limits. */
  private async stage(accountId: string): Promise<Staged> {
    const account = this.accounts.get(accountId) ?? { uploads: 0, bytes: 0 };
    if (account.uploads >= this.limits.maxConcurrentPerAccount)
      throw new AppError(
        'rate_limited',
        `This account has ${account.uploads} uploads in progress: retry when one ends`,
        { retryAfterSeconds: 10 },
      );
    if (this.process.uploads >= this.limits.maxConcurrent)
      throw new AppError('unavailable', 'The gateway has too many uploads in progress: retry shortly', {
        retryAfterSeconds: 10,
      });
    account.uploads++;
    this.process.uploads++;
    this.accounts.set(accountId, account);
    const ticket = new StagingTicket(this.limits, account, this.process, () => {
      if (account.uploads === 0) this.accounts.delete(accountId);
    });
    try {
      await mkdir(STAGING_DIR, { recursive: true });
      const dir = await mkdtemp(join(STAGING_DIR, 'upload-'));
      return {
        dir,
        ticket,
        cleanup: async () => {
          await rm(dir, { recursive: true, force: true });
          ticket.release();
        },
      };
    } catch (error) {
      ticket.release();
      throw error;
    }
  }

  /** Stages a CSV given as text (MCP create_list) under the same limits as an upload; `cleanup` removes it. */
  async stageText(accountId: string, text: string): Promise<{ path: string; cleanup(): Promise<void> }> {
    const staged = await this.stage(accountId);
    try {
      staged.ticket.add(Buffer.byteLength(text));
      const path = join(staged.dir, 'list.csv');
      await writeFile(path, text);
      return { path, cleanup: staged.cleanup };
    } catch (error) {
      await staged.cleanup();
      throw error;
    }
  }

  /**
   * Receives a multipart upload, streaming the `file` part to a temporary file (never into memory)
   * so that the CSV can be read once every field is known, whatever their order in the request.
   * Over 50 MB → 413, as soon as the limit is crossed; a body silent for the idle timeout → 408, and
   * the connection closes with the answer. Whatever ends it (refusal, a client gone mid-body, a
   * timeout), the file and its descriptor are released before this returns or throws.
   */
  async receive(req: IncomingMessage, res: ServerResponse, accountId: string): Promise<Upload> {
    if (!/^multipart\/form-data/i.test(req.headers['content-type'] ?? '')) {
      throw new AppError('bad_request', 'Send the list as multipart/form-data with the CSV in a part named "file"');
    }
    let parser: busboy.Busboy;
    let staged: Staged;
    try {
      parser = busboy({
        headers: req.headers,
        limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: MAX_FIELDS, fieldSize: MAX_FIELD_BYTES },
      });
      staged = await this.stage(accountId);
    } catch (error) {
      // No boundary, an unknown charset, over the staging limits: refused before anything is read or written.
      req.resume();
      if (error instanceof AppError) throw error;
      throw new AppError('bad_request', `The upload is not valid multipart/form-data: ${(error as Error).message}`);
    }
    // Every write is awaited on every path: a file part cut short fails its write too, and an
    // unawaited failure would be an unhandled rejection (the end of the process).
    const writes: Array<Promise<unknown>> = [];
    // Streams that must be destroyed when the upload fails: a file part whose request is gone never ends.
    const open: Readable[] = [];
    let idle: NodeJS.Timeout | undefined;
    try {
      const fields: Record<string, string> = {};
      let path: string | null = null;
      let filename: string | null = null;
      await new Promise<void>((resolve, reject) => {
        // A client that stalls mid-body holds its staged file for nothing; Node's own request timeout is minutes.
        idle = setTimeout(() => {
          // It will not send the rest: the answer closes the connection instead of waiting to drain it.
          res.setHeader('Connection', 'close');
          reject(
            new AppError(
              'request_timeout',
              `The upload sent nothing for ${this.limits.idleTimeoutMs / 1000} s: send the whole body without pausing`,
            ),
          );
        }, this.limits.idleTimeoutMs);
        req.on('data', () => idle?.refresh());
        parser.on('field', (name, value) => {
          fields[name] = value;
        });
        parser.on('file', (name, stream, info) => {
          open.push(stream);
          if (name !== 'file' || path) {
            // A part we drop still fails when the form is cut short; the form's own error answers for it.
            stream.on('error', () => undefined).resume();
            return;
          }
          path = join(staged.dir, 'upload.csv');
          filename = info.filename ?? null;
          stream.on('limit', () =>
            reject(new AppError('payload_too_large', `The file is larger than ${MAX_UPLOAD_BYTES / 1024 / 1024} MB`)),
          );
          stream.on('data', (chunk: Buffer) => {
            try {
              staged.ticket.add(chunk.length);
            } catch (error) {
              reject(error);
            }
          });
          writes.push(pipeline(stream, createWriteStream(path)));
        });
        parser.on('close', resolve);
        parser.on('error', (error: Error) =>
          reject(new AppError('bad_request', `The upload is not valid multipart/form-data: ${error.message}`)),
        );
        // A client that resets or half-closes mid-body, or a request past its timeout; `finished` also
        // sees a request that closed while its folder was being made, whose 'close' has already passed.
        finished(req, (error) => {
          if (error) reject(new AppError('bad_request', 'The upload ended before its body did'));
        });
        req.pipe(parser);
      });
      clearTimeout(idle);
      await Promise.all(writes);
      for (const [name, value] of Object.entries(fields)) assertPlainText(name, value);
      if (filename !== null) assertPlainText('the file name', filename);
      return { path, filename, fields, cleanup: staged.cleanup };
    } catch (error) {
      clearTimeout(idle);
      // The rest of a refused upload is read and dropped, so the client gets its answer.
      req.unpipe(parser);
      req.resume();
      // With an error: a part already ended but not yet read, destroyed without one, leaves its
      // pipeline waiting for an 'end' that never comes (the 413 reached as its part closes).
      for (const stream of open) stream.destroy(error as Error);
      await Promise.allSettled(writes);
      await staged.cleanup();
      throw error;
    }
  }
}
