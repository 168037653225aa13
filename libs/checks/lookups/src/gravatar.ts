import { createHash } from 'node:crypto';
import { withTimeout, type HttpGet } from './http';

/** Whether an avatar exists for the address (SHA-256 of the lower-cased normalised address, `d=404`). null: could not tell. */
export async function hasGravatar(
  http: HttpGet,
  baseUrl: string,
  email: string,
  timeoutMs = 3_000,
): Promise<boolean | null> {
  const hash = createHash('sha256').update(email.trim().toLowerCase()).digest('hex');
  try {
    const response = await withTimeout(timeoutMs, (signal) =>
      http(`${baseUrl}/avatar/${hash}?d=404`, { signal, accept: 'image/*' }),
    );
    if (response.status === 200) return true;
    if (response.status === 404) return false;
    return null;
  } catch {
    return null;
  }
}
