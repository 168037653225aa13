import type { MailRelayConfig } from '@mailguard/config';
import { LabMailRelay } from '../../../../test/lab/mail-relay';
import { formatMessage, MailError, sendMail } from './mail';

describe('sendMail through the lab relay', () => {
  const relay = new LabMailRelay('127.0.0.1');
  let config: MailRelayConfig;

  beforeAll(async () => {
    await relay.start();
    config = { host: relay.host, port: relay.port, secure: false, user: null, password: null, from: 'noreply@mg.test' };
  });
  afterAll(() => relay.stop());

  it('delivers headers and body, dot-stuffed, with CRLF line ends only', async () => {
    await sendMail(config, {
      to: 'Jane@Acme.test',
      subject: 'Réinitialiser',
      text: 'first\n.hidden line\r\n..two dots\nlast',
    });
    const message = await relay.waitFor('jane@acme.test');
    expect(message.from).toBe('noreply@mg.test');
    expect(message.headers.from).toBe('noreply@mg.test');
    expect(message.headers.subject).toBe(`=?UTF-8?B?${Buffer.from('Réinitialiser').toString('base64')}?=`);
    expect(message.body).toBe('first\r\n.hidden line\r\n..two dots\r\nlast');
    expect(relay.violations).toEqual([]);
  });

  it('lets no CR or LF from the caller reach the socket', async () => {
    const before = relay.messages.length;
    await expect(sendMail(config, { to: 'a@b.test\r\nRCPT TO:<x@y.test>', subject: 's', text: 't' })).rejects.toThrow(
      MailError,
    );
    await expect(sendMail(config, { to: 'a@b.test', subject: 'hi\r\nBcc: x@y.test', text: 't' })).rejects.toThrow(
      MailError,
    );
    expect(relay.messages.length).toBe(before);
  });

  it('never sends a password over a connection without TLS', async () => {
    await expect(
      sendMail({ ...config, user: 'u', password: 'p' }, { to: 'a@b.test', subject: 's', text: 't' }),
    ).rejects.toThrow(/no TLS/);
  });

  it('fails, without hanging, when the relay is not there', async () => {
    await expect(sendMail({ ...config, port: 1 }, { to: 'a@b.test', subject: 's', text: 't' })).rejects.toThrow(
      MailError,
    );
  });

  it('ends the message with the lone dot', () => {
    expect(formatMessage('a@b.test', { to: 'c@d.test', subject: 's', text: 'x' })).toMatch(/\r\nx\r\n\.\r\n$/);
  });
});
