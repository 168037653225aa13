import { createHmac } from 'node:crypto';
import { Logger as NestLogger } from '@nestjs/common';
import { LogPrivacy } from './privacy';
import { createLogger, PinoNestLogger } from './logger';

const KEY = 'privacy-spec-hash-key';
const privacy = new LogPrivacy({ hashKey: KEY, secrets: ['admin-token-4f1c9e', 'metrics-token-77aa01bc'] });
/** The documented form, computed here on its own: `h:` + 8 hex of HMAC-SHA256(key, lower-cased address) + `@domain`. */
const masked = (address: string, key = KEY) =>
  `h:${createHmac('sha256', key).update(address.toLowerCase()).digest('hex').slice(0, 8)}@${address.split('@')[1].toLowerCase()}`;

describe('LogPrivacy.address', () => {
  it('keeps the domain and replaces the local part by a short hash keyed by the deployment', () => {
    expect(privacy.address('Jane.Doe@Example.com')).toBe(masked('jane.doe@example.com'));
    expect(privacy.address('jane.doe@example.com')).toBe(privacy.address('JANE.DOE@EXAMPLE.COM'));
    expect(privacy.address('john@example.com')).not.toBe(privacy.address('jane.doe@example.com'));
    // Another deployment's key: the same address reads differently, so logs cannot be matched across them.
    expect(new LogPrivacy({ hashKey: 'another-key-entirely', secrets: [] }).address('jane.doe@example.com')).toBe(
      masked('jane.doe@example.com', 'another-key-entirely'),
    );
    expect(masked('jane.doe@example.com', 'another-key-entirely')).not.toBe(masked('jane.doe@example.com'));
  });
});

describe('LogPrivacy.line (every line a logger writes)', () => {
  it('masks every address, in text, JSON, URLs (percent-encoded too), error messages and stacks', () => {
    const line = JSON.stringify({
      msg: 'job smtp.probe 42 failed: 550 5.1.1 <jane.doe@example.com>: Recipient address rejected',
      url: '/v1/email-validation/john%2Bx%40example.org?page=1',
      parameters: ['ünïcode@exämple.de', 'a.b-c_d@sub.mail.example.co.uk'],
      err: { stack: 'Error: bad\n    at verify (mailto:mike@example.net)' },
    });
    const out = privacy.line(line);
    expect(JSON.parse(out)).toEqual({
      msg: `job smtp.probe 42 failed: 550 5.1.1 <${masked('jane.doe@example.com')}>: Recipient address rejected`,
      url: `/v1/email-validation/${masked('john+x@example.org')}?page=1`,
      parameters: [masked('ünïcode@exämple.de'), masked('a.b-c_d@sub.mail.example.co.uk')],
      err: { stack: `Error: bad\n    at verify (mailto:${masked('mike@example.net')})` },
    });
  });

  it('leaves a masked address, package paths and versions as they are', () => {
    const text = `${masked('jane@example.com')} at node_modules/@nestjs/core/x.js typeorm@1.1.1 user@localhost`;
    expect(privacy.line(text)).toBe(text);
    expect(privacy.line(privacy.line('jane@example.com'))).toBe(masked('jane@example.com'));
  });

  it('redacts API keys (not the 12-character prefix the API shows), webhook secrets, bearer and basic credentials and the configured secrets', () => {
    const key = 'mg_live_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY';
    const out = privacy.line(
      JSON.stringify({
        msg: `key ${key} (prefix mg_live_aB3d), widget mg_widget_Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp, whsec_Qw3rTy7uI9oP1aS3dF5gH7jK9lZ1xC3v`,
        header: 'Bearer admin-token-4f1c9e and Basic b3BzOmFkbWluLXRva2Vu',
        note: 'scraped with metrics-token-77aa01bc',
      }),
    );
    expect(JSON.parse(out)).toEqual({
      msg: 'key mg_live_[redacted] (prefix mg_live_aB3d), widget mg_widget_[redacted], whsec_[redacted]',
      header: 'Bearer [redacted] and Basic [redacted]',
      note: 'scraped with [redacted]',
    });
  });

  it('redacts credential query parameters, credential fields and URL passwords', () => {
    const out = privacy.line(
      JSON.stringify({
        msg: 'fetch https://hooks.example.com/in?token=abc123&id=7&hook_token=zz failed',
        password: 'hunter2',
        webhookSecret: 'plain',
        sessionToken: 'sess-1',
        'x-api-key': 'k',
        tokens: 3,
        database: 'postgres://mailguard:hunter3@db.internal:5432/mailguard',
        egress: 'socks5://user:p4ss@proxy.example.com:1080',
      }),
    );
    expect(JSON.parse(out)).toEqual({
      msg: 'fetch https://hooks.example.com/in?token=[redacted]&id=7&hook_token=[redacted] failed',
      password: '[redacted]',
      webhookSecret: '[redacted]',
      sessionToken: '[redacted]',
      'x-api-key': '[redacted]',
      tokens: 3,
      database: 'postgres://mailguard:[redacted]@db.internal:5432/mailguard',
      egress: 'socks5://user:[redacted]@proxy.example.com:1080',
    });
  });

  it('leaves a line with nothing private untouched', () => {
    const line =
      '{"level":30,"time":"2026-01-01T00:00:00.000Z","service":"gateway","req":{"id":"x","method":"GET","url":"/v1/credits?page=2"},"msg":"request completed"}';
    expect(privacy.line(line)).toBe(line);
  });
});

describe('createLogger', () => {
  it('passes every line through LogPrivacy, whoever writes it: pino calls, errors, and Nest loggers', () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', hashKey: KEY, secrets: ['admin-token-4f1c9e'] }, 'spec', {
      write: (line: string) => lines.push(line),
    });
    logger.info({ email: 'jane@example.com', admin: 'admin-token-4f1c9e' }, 'checked jane@example.com');
    logger.error({ err: new Error('insert of jane@example.com failed') }, 'request failed');
    NestLogger.overrideLogger(new PinoNestLogger(logger));
    new NestLogger('Jobs').warn('job verify 7 failed: mg_live_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY refused');
    NestLogger.overrideLogger(false);
    const text = lines.join('');
    expect(lines).toHaveLength(3);
    expect(text).not.toMatch(/jane@|admin-token|aB3dE5fG/);
    // The field and the message of the first line; the error's message and its stack.
    expect(text.match(new RegExp(masked('jane@example.com'), 'g'))).toHaveLength(4);
  });
});
