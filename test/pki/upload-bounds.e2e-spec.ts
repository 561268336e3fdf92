import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import request from 'supertest';
import { startTestServices, TestServices } from '../support/app';
import { client } from './cert-e2e-helpers';

/*
 * Issue 35: 300 copies of one self-signed RSA-4096 certificate with only a byte changed (same
 * subject and issuer, signatures failing), uploaded with addCertificate, took 18 s and held the
 * event loop of both services. An upload holds at most 20 certificates now, refused before any
 * is parsed; the largest accepted bundle of look-alikes is ordered with each pair checked once.
 */
describe('certificate uploads are bounded in work, not only in bytes', () => {
  let s: TestServices;
  const dir = mkdtempSync(join(tmpdir(), 'upload-bounds-'));
  const api = client(() => s.pkiUrl, () => s.adminToken);
  let lookAlikes: (count: number) => string;

  beforeAll(async () => {
    s = await startTestServices();
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:4096', '-nodes', '-keyout', 'k.pem', '-out', 'c.pem', '-days', '5', '-subj', '/CN=same.example.test'], { cwd: dir, stdio: 'ignore' });
    const der = Buffer.from(readFileSync(join(dir, 'c.pem'), 'utf8').replace(/-----[^-]+-----|\s/g, ''), 'base64');
    // Each copy differs in the last two bytes of its signature: same names, a signature that fails.
    lookAlikes = (count) =>
      Array.from({ length: count }, (_, i) => {
        const copy = Buffer.from(der);
        copy.writeUInt16BE((copy.readUInt16BE(copy.length - 2) + i + 1) & 0xffff, copy.length - 2);
        return `-----BEGIN CERTIFICATE-----\n${copy.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END CERTIFICATE-----\n`;
      }).join('');
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses 300 look-alikes naming the limit, stores nothing, and both services keep answering', async () => {
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const [upload, health] = await Promise.all([
      api.upload('addCertificate', { fileType: 'CERTFILE' }, { File: { body: lookAlikes(300), name: 'bundle.pem' } }),
      request(s.vaultUrl).get('/health'),
    ]);
    const accepted = await api.upload('addCertificate', { fileType: 'CERTFILE' }, { File: { body: lookAlikes(20), name: 'twenty.pem' } });
    delay.disable();
    expect(upload.body.result).toEqual({ Status: 'Failed', Message: 'The upload holds 300 certificates; at most 20 are accepted in one upload' });
    expect(health.status).toBe(200);
    expect(accepted.body.result.Status).toBe('Success');
    expect(await s.dataSource.query(`SELECT count(*)::int AS n FROM certificates WHERE common_name = 'same.example.test'`)).toEqual([{ n: 1 }]);
    // Generous for a shared, loaded machine (as test/pki/costly-key-files): the old code held the loop for seconds.
    expect(delay.max / 1e6).toBeLessThan(1000);
  });

  it('a PKCS#7 bundle (DER) is held to the same limit', async () => {
    const p7 = (count: number, name: string) => {
      execFileSync('sh', ['-c', `cat > ${name}.pem`], { cwd: dir, input: lookAlikes(count) });
      execFileSync('openssl', ['crl2pkcs7', '-nocrl', '-certfile', `${name}.pem`, '-outform', 'DER', '-out', `${name}.p7b`], { cwd: dir, stdio: 'ignore' });
      return readFileSync(join(dir, `${name}.p7b`));
    };
    const refused = await api.upload('addCertificate', { fileType: 'CERTFILE' }, { File: { body: p7(300, 'many'), name: 'many.p7b' } });
    expect(refused.body.result).toEqual({ Status: 'Failed', Message: 'The upload holds 300 certificates; at most 20 are accepted in one upload' });
    const accepted = await api.upload('addCertificate', { fileType: 'CERTFILE' }, { File: { body: p7(20, 'few'), name: 'few.p7b' } });
    expect(accepted.body.result.Status).not.toBe('Failed');
  });
});
