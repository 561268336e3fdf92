import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestServices, startTestServices } from '../support/app';
import { createTestDatabase } from '../support/database';
import { inputData } from '../support/http';
import { rawRequest } from '../support/raw-http';
import { ServiceProcess } from './service-process';
import { freePort } from '../support/free-port';

/*
 * Issue 32: one unauthenticated multipart request with a UTF-16 text part ended the process
 * that serves both services. Every such body is answered, on both ports, before and after
 * authentication; the services keep serving. And a stored file's name, whatever it holds,
 * never breaks the download that releases it.
 */
describe('hostile bodies never end the process', () => {
  let s: TestServices;
  beforeAll(async () => {
    s = await startTestServices();
  });
  afterAll(() => s?.close());

  const utf16 = Buffer.from('hello', 'utf16le');
  const textPart = (name: string, value: Buffer, charset: string) =>
    Buffer.concat([Buffer.from(`--X\r\nContent-Disposition: form-data; name="${name}"\r\nContent-Type: text/plain; charset=${charset}\r\n\r\n`), value, Buffer.from('\r\n--X--\r\n')]);
  const multipartHeaders = { 'Content-Type': 'multipart/form-data; boundary=X' };

  it.each([
    ['pki', '/api/pki/restapi/addSSHKey'],
    ['vault', '/api/pki/restapi/addSSHKey'],
    ['vault', '/restapi/json/v1/resources'],
  ] as const)('%s %s: a UTF-16 part is answered Failed, with or without a token, and the next request is served', async (service, path) => {
    const base = service === 'vault' ? s.vaultUrl : s.pkiUrl;
    for (const charset of ['utf-16', 'utf-16be', 'x-unknown', '"']) {
      for (const headers of [multipartHeaders, { ...multipartHeaders, AUTHTOKEN: s.adminToken }] as Record<string, string>[]) {
        const answer = await rawRequest(base, { method: 'POST', path, headers, body: textPart('File', utf16, charset) });
        expect(answer.status).toBeLessThan(500);
        const message = JSON.stringify(answer.json);
        expect(message).toMatch(headers.AUTHTOKEN && charset !== '"' ? /multipart field \\"File\\" could not be read: its charset/ : /Failed|failed/);
      }
    }
    expect((await rawRequest(base, { method: 'GET', path: '/health' })).status).toBe(200);
    const list = await rawRequest(s.pkiUrl, { method: 'GET', path: '/api/pki/restapi/getAllSSHKeys', headers: { AUTHTOKEN: s.adminToken } });
    expect(list.status).toBe(200);
  });

  // Names a client can give a file (busboy reads filename* exactly): controls, a right-to-left override, emoji.
  const hostileName = 'a\u0001b\u202Ekey😀"q.jks';
  const filePart = (content: string) =>
    `--X\r\nContent-Disposition: form-data; name="File"; filename*=UTF-8''${encodeURIComponent(hostileName)}\r\nContent-Type: application/octet-stream\r\n\r\n${content}\r\n`;

  it('exportKeyStoreKey serves a key stored under any name, with a valid Content-Disposition and nosniff, audited once', async () => {
    const body = `--X\r\nContent-Disposition: form-data; name="INPUT_DATA"\r\n\r\n${inputData({ keyName: 'hostile-name' })}\r\n${filePart('keystore-bytes')}--X--\r\n`;
    const added = await rawRequest(s.pkiUrl, { method: 'POST', path: '/api/pki/restapi/addKeyStoreKey', headers: { ...multipartHeaders, AUTHTOKEN: s.adminToken }, body });
    expect(added.json.result).toEqual({ Status: 'Success', Message: 'Key hostile-name added successfully' });
    const answer = await rawRequest(s.pkiUrl, {
      method: 'POST',
      path: '/api/pki/restapi/exportKeyStoreKey',
      headers: { AUTHTOKEN: s.adminToken, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `INPUT_DATA=${encodeURIComponent(inputData({ keyName: 'hostile-name' }))}`,
    });
    expect(answer.status).toBe(200);
    expect(answer.text).toBe('keystore-bytes');
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    const disposition = String(answer.headers['content-disposition']);
    expect(disposition).toMatch(/^attachment; filename="[\x20-\x7e]+"; filename\*=UTF-8''[\x21-\x7e]+$/);
    expect(decodeURIComponent(/filename\*=UTF-8''(.*)$/.exec(disposition)![1])).toBe(hostileName);
    const audit = await s.dataSource.query(`SELECT target FROM audit WHERE operation = 'Key Vault Key Exported'`);
    expect(audit).toEqual([{ target: 'hostile-name' }]);
  });

  it('the vault’s downloadfile serves a file stored under any name', async () => {
    const details = { RESOURCENAME: 'hostile-file', ACCOUNTNAME: 'bundle', RESOURCETYPE: 'File Store', PASSWORD: 'File-Pass-123!' };
    const body = `--X\r\nContent-Disposition: form-data; name="INPUT_DATA"\r\n\r\n${inputData(details)}\r\n${filePart('file-bytes').replace('name="File"', 'name="file"')}--X--\r\n`;
    const added = await rawRequest(s.vaultUrl, { method: 'POST', path: '/restapi/json/v1/resources', headers: { ...multipartHeaders, AUTHTOKEN: s.adminToken }, body });
    expect(added.json.operation.result.status).toBe('Success');
    const [ids] = await s.dataSource.query(`SELECT r.id AS rid, a.id AS aid FROM resources r JOIN accounts a ON a.resource_id = r.id WHERE r.name = 'hostile-file'`);
    const answer = await rawRequest(s.vaultUrl, { method: 'GET', path: `/restapi/json/v1/resources/${ids.rid}/accounts/${ids.aid}/downloadfile`, headers: { AUTHTOKEN: s.adminToken } });
    expect(answer.status).toBe(200);
    expect(answer.text).toBe('file-bytes');
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    // The vault keeps the name less its control characters and quotes; the rest arrives exactly.
    const [stored] = await s.dataSource.query(`SELECT file_name FROM stored_files WHERE account_id = $1`, [ids.aid]);
    expect(stored.file_name).toBe('ab\u202Ekey😀q.jks');
    expect(decodeURIComponent(/filename\*=UTF-8''(.*)$/.exec(String(answer.headers['content-disposition']))![1])).toBe(stored.file_name);
  });

  it('a service started as production starts it survives the issue’s request, and counts no escaped error', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'vault-hostile-'));
    const vault = new ServiceProcess(await freePort(), { DATABASE_URL: await createTestDatabase(), DATA_DIR: dataDir });
    await vault.start();
    try {
      for (const charset of ['utf-16', 'utf-16be', 'x-unknown', 'utf-16le']) {
        const answer = await rawRequest(vault.url, { method: 'POST', path: '/api/pki/restapi/addSSHKey', headers: multipartHeaders, body: textPart('File', utf16, charset) });
        expect(answer.status).toBeLessThan(500);
      }
      expect(vault.running).toBe(true);
      expect((await rawRequest(vault.url, { method: 'GET', path: '/health' })).status).toBe(200);
      const token = readFileSync(join(dataDir, 'initial-admin-token'), 'utf8').trim();
      const metrics = await rawRequest(vault.url, { method: 'GET', path: '/metrics', headers: { AUTHTOKEN: token } });
      expect(metrics.text).toContain('credvault_process_faults_total');
      expect(metrics.text).not.toMatch(/credvault_process_faults_total\{[^}]*\} [1-9]/);
    } finally {
      await vault.stop();
    }
  }, 180_000);
});
