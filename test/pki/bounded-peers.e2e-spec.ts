import { existsSync } from 'node:fs';
import { createServer, Server, Socket } from 'node:net';
import { join } from 'node:path';
import { AcmeTestClient } from '../../bench/acme-client';
import { startTestServices, TestServices } from '../support/app';
import { startSshd, type SshdFixture } from '../support/sshd';
import { client } from './cert-e2e-helpers';
import { freePort } from '../support/free-port';

const SSH_PASSWORD = 'B0unded-Pass-word';

/**
 * Issue 24 item 10: a peer cannot hold the server's memory or a request for ever. SSH command
 * output is bounded (1 MiB), and ACME validation ends within 10 s whatever the peer does.
 */
describe('bounded peers (issue 24 item 10)', () => {
  let s: TestServices;
  let sshd: SshdFixture;
  let dripper: Server;
  let tlsDripper: Server;
  const sockets = new Set<Socket>();
  const api = client(() => s.pkiUrl, () => s.adminToken);

  beforeAll(async () => {
    const http01 = await freePort();
    // An http-01 peer that announces a body and sends one byte of it every 300 ms: never idle, never done.
    dripper = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.once('data', () => {
        socket.write('HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\nContent-Type: text/plain\r\n\r\n');
        const drip = setInterval(() => (socket.destroyed ? clearInterval(drip) : socket.write('x')), 300);
        socket.on('close', () => clearInterval(drip));
      });
    });
    await new Promise<void>((resolve) => dripper.listen(http01, '127.0.0.1', resolve));
    // A tls-alpn-01 peer that answers the ClientHello with a record header announcing 16 KiB, then drips it.
    tlsDripper = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.once('data', () => {
        socket.write(Buffer.from([0x16, 0x03, 0x03, 0x40, 0x00]));
        const drip = setInterval(() => (socket.destroyed ? clearInterval(drip) : socket.write(Buffer.from([0x02]))), 300);
        socket.on('close', () => clearInterval(drip));
      });
    });
    const tlsAlpn01 = await freePort();
    await new Promise<void>((resolve) => tlsDripper.listen(tlsAlpn01, '127.0.0.1', resolve));
    [s, sshd] = await Promise.all([startTestServices({ ACME_HTTP01_PORT: String(http01), ACME_TLSALPN01_PORT: String(tlsAlpn01) }), startSshd()]);
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    dripper?.close();
    tlsDripper?.close();
    await s?.close();
    await sshd?.stop();
  });

  it('a command writing more than 1 MiB fails and its connection is closed; nothing after it runs', async () => {
    const user = await sshd.createUser(SSH_PASSWORD);
    const home = sshd.homeOf(user);
    const saved = await api.post('saveDeploymentTarget', {
      serverName: 'chatty', HOST: '127.0.0.1', PORT: sshd.port, userName: user, password: SSH_PASSWORD,
      certificatePath: `${home}/web/cert.pem`, keyPath: `${home}/web/key.pem`,
      // 64 MiB on stdout, then a mark that only a command left to finish would leave.
      reloadCommand: `head -c 67108864 /dev/zero && touch ${home}/finished`,
    });
    expect(saved.body.result.status).toBe('Success');
    const csr = await api.post('createCSR', { CNAME: 'chatty.e2e.test', PASSWORD: 'Key-Pass-7' });
    expect((await api.post('signCSR', { CSR_ID: csr.body.details.CSR_ID })).body.result.status).toBe('Success');
    const res = await api.post('deployCertificate', { common_name: 'chatty.e2e.test', serverName: 'chatty' });
    expect(res.body.result.status).toBe('Failed');
    expect(res.body.deployStatus).toEqual([
      { server: 'chatty', status: 'Failure', message: `A command on 127.0.0.1:${sshd.port} wrote more than 1048576 bytes of output; the connection was closed` },
    ]);
    // The files were written before the reload; the reload itself was cut off.
    expect(existsSync(join(home, 'web', 'cert.pem'))).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(existsSync(join(home, 'finished'))).toBe(false);
  });

  async function challengeFor(type: 'http-01' | 'tls-alpn-01'): Promise<{ c: AcmeTestClient; url: string }> {
    const key = (await api.post('createAcmeEabKey', { caName: 'issuing-ca' })).body.details;
    const c = await new AcmeTestClient(`${s.pkiUrl}/acme/issuing-ca/directory`).init();
    expect((await c.register(key.keyId, key.hmacKey)).status).toBe(201);
    const order = await c.post(c.directory.newOrder, { identifiers: [{ type: 'ip', value: '127.0.0.1' }] });
    expect(order.status).toBe(201);
    const authz = await c.post(order.body.authorizations[0], '');
    return { c, url: authz.body.challenges.find((ch: { type: string }) => ch.type === type).url };
  }

  it.each(['http-01', 'tls-alpn-01'] as const)('%s validation against a peer that drips its answer ends within 10 s: the challenge is invalid', async (type) => {
    expect((await api.post('setAcmeAllowedDomains', { caName: 'issuing-ca', allowedDomains: '*, 127.0.0.0/8' })).body.result.status).toBe('Success');
    const { c, url } = await challengeFor(type);
    const started = Date.now();
    const answer = await c.post(url, {});
    const elapsed = Date.now() - started;
    expect(answer.body.status).toBe('invalid');
    expect(answer.body.error).toMatchObject({ type: 'urn:ietf:params:acme:error:connection', detail: expect.stringContaining('within 10 s') });
    expect(elapsed).toBeGreaterThanOrEqual(9_500);
    expect(elapsed).toBeLessThan(12_000);
    // The server hung up on the peer.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect([...sockets].every((socket) => socket.destroyed)).toBe(true);
  }, 40_000);
});
