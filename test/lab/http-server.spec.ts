import { createHash } from 'node:crypto';
import { startLab, type Lab } from './lab';
import { loadScenario } from './scenario';

let lab: Lab;

beforeAll(async () => {
  lab = await startLab(loadScenario());
});

afterAll(() => lab.stop());

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

describe('RDAP', () => {
  it('returns the registration event of a registered domain', async () => {
    const response = await fetch(`${lab.env.RDAP_BASE_URL}/domain/acme.test`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/rdap+json');
    const body = (await response.json()) as {
      objectClassName: string;
      events: Array<{ eventAction: string; eventDate: string }>;
    };
    expect(body.objectClassName).toBe('domain');
    expect(body.events).toContainEqual({ eventAction: 'registration', eventDate: '1998-04-12T00:00:00Z' });
  });

  it('answers 404 for a domain it has no record of', async () => {
    const response = await fetch(`${lab.env.RDAP_BASE_URL}/domain/greylist.test`);
    expect(response.status).toBe(404);
  });
});

describe('avatars', () => {
  it('serves an image for the sha256 of a lower-cased address that has one, 404 otherwise', async () => {
    const found = await fetch(`${lab.env.GRAVATAR_BASE_URL}/avatar/${sha256('john.doe@acme.test')}?d=404`);
    expect(found.status).toBe(200);
    expect(found.headers.get('content-type')).toBe('image/png');
    const missing = await fetch(`${lab.env.GRAVATAR_BASE_URL}/avatar/${sha256('jane@acme.test')}?d=404`);
    expect(missing.status).toBe(404);
  });
});

describe('scenario validation', () => {
  it('refuses a scenario whose MX names an undeclared host', async () => {
    await expect(startLab({ domains: { 'x.test': { mx: [{ host: 'typo.test', priority: 1 }] } } })).rejects.toThrow(
      /neither a server nor a domain/,
    );
  });

  it('refuses an unknown mailbox state', async () => {
    await expect(
      startLab({
        servers: { 'mx.x.test': {} },
        domains: { 'x.test': { mx: [{ host: 'mx.x.test', priority: 1 }], mailboxes: { a: 'fine' } } },
      }),
    ).rejects.toThrow(/unknown state/);
  });
});
