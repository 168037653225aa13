import { SocksClient } from 'socks';
import { startLab, type Lab } from './lab';
import { loadScenario } from './scenario';
import { queryOverTcp } from './testing/dns-query';
import { SmtpDialogue } from './testing/smtp-dialogue';

/** The proxy's exit address: the source of its upstream connections, all that servers see of its clients. */
const EXIT = '127.250.0.9';

let lab: Lab;

beforeAll(async () => {
  const scenario = loadScenario();
  scenario.whoami = ['myip.lab.test'];
  scenario.servers!['mx1.acme.test'].clients = { [EXIT]: { replies: { banner: '220 {host} ESMTP hello {ip}' } } };
  lab = await startLab(scenario, { socksOutboundAddress: EXIT });
});

afterAll(() => lab.stop());

/** A connection to host:port through the lab's proxy, as the prober's SMTP_PROXY path opens it. */
async function through(host: string, port: number) {
  const { socket } = await SocksClient.createConnection({
    proxy: { host: lab.socks.host, port: lab.socks.port, type: 5, userId: 'lab', password: 'lab-secret' },
    command: 'connect',
    destination: { host, port },
  });
  return socket;
}

it("connects upstream from its exit address: a mail server counts and treats the session as that address's", async () => {
  const dialogue = SmtpDialogue.over(await through(lab.ipOf('mx1.acme.test'), lab.smtpPort));
  expect((await dialogue.reply()).text).toBe(`mx1.acme.test ESMTP hello ${EXIT}`);
  expect(lab.stats('mx1.acme.test').byClient).toEqual({ [EXIT]: { sessions: 1, active: 1, peakConcurrent: 1 } });
  expect(lab.socks.connects).toEqual([`${lab.ipOf('mx1.acme.test')}:${lab.smtpPort}`]);
  dialogue.close();
});

it('shows the exit address to a whoami query made through it (DNS over TCP)', async () => {
  const response = await queryOverTcp(await through(lab.dns.host, lab.dns.port), { type: 'A', name: 'myip.lab.test' });
  expect(response.answers).toEqual([expect.objectContaining({ type: 'A', data: EXIT })]);
});
