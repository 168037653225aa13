import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';

export interface EmbeddedPostgres {
  /** Connection string for the ordinary `pg` driver. */
  url: string;
  stop(): Promise<void>;
}

const PGLITE_PACKAGES = ['@electric-sql/pglite', '@electric-sql/pglite-socket'];

/**
 * PGlite is an optional dependency, loaded only when DATABASE_URL is unset: a production install
 * (`--omit=optional`) leaves it out, and then says so in one line instead of a module stack.
 */
async function loadPglite() {
  try {
    const [{ PGlite }, { PGLiteSocketServer }] = await Promise.all([
      import('@electric-sql/pglite'),
      import('@electric-sql/pglite-socket'),
    ]);
    return { PGlite, PGLiteSocketServer };
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    const missing = code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
    if (!missing || !PGLITE_PACKAGES.some((name) => message.includes(name))) throw error;
    throw new Error(
      `DATABASE_URL is unset, and the embedded Postgres it stands for needs the optional packages ` +
        `${PGLITE_PACKAGES.join(' and ')}, which this install left out (--omit=optional): ` +
        'set DATABASE_URL to a Postgres server, or install the optional dependencies',
      { cause: error },
    );
  }
}

/**
 * Runs PGlite (Postgres compiled to WASM) behind a Postgres wire-protocol socket on loopback,
 * so the same `pg` driver and migrations serve the embedded default and a real server.
 */
export async function startEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  const { PGlite, PGLiteSocketServer } = await loadPglite();
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const db = await PGlite.create(dir);
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0 });
  await server.start();
  return {
    url: `postgres://postgres@${server.getServerConn()}/postgres`,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
