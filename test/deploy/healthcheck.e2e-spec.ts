import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { startTestServices, TestServices } from '../support/app';

const SCRIPT = join(__dirname, '..', '..', 'scripts', 'healthcheck.js');

/** The container health check (docker-compose.yml) against real services: 0 when healthy, 1 otherwise. */
describe('scripts/healthcheck.js', () => {
  let s: TestServices;
  beforeAll(async () => {
    s = await startTestServices();
  });
  afterAll(() => s?.close());

  const check = (service: string, env: Record<string, string>) =>
    new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(process.execPath, [SCRIPT, service], { env: { PATH: process.env.PATH, TLS_MODE: 'off', ...env } }, (error, _stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stderr }),
      );
    });
  const portOf = (url: string) => new URL(url).port;

  it('exits 0 for each healthy service on its own port', async () => {
    expect(await check('vault', { VAULT_PORT: portOf(s.vaultUrl) })).toEqual({ code: 0, stderr: '' });
    expect(await check('pki', { PKI_PORT: portOf(s.pkiUrl) })).toEqual({ code: 0, stderr: '' });
  });

  it('exits 1 naming the cause when nothing answers', async () => {
    const closed = await check('vault', { VAULT_PORT: '1' });
    expect(closed.code).toBe(1);
    expect(closed.stderr).toMatch(/^vault health: connect ECONNREFUSED 127\.0\.0\.1:1/);
  });
});
