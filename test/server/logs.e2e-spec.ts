import request from 'supertest';
import { startTestServices, TestServices } from '../support/app';
import { createResource } from '../support/factories';
import { inputData } from '../support/http';
import { vaultClient } from '../vault/vault-client';

const PKI = '/api/pki/restapi';

/**
 * LOG_FORMAT=json at the most talkative level, every byte the process writes captured, across
 * a workflow that handles every kind of secret: API tokens (header, query, pki path segment,
 * a wrong one), login and account passwords, certificate passphrases, private keys of
 * certificates and SSH keys. None of them may appear in the logs; every request has its line.
 */
describe('structured logs (LOG_FORMAT=json)', () => {
  let s: TestServices;
  const written: string[] = [];
  const secrets: string[] = [];
  const capture = (chunk: unknown): boolean => {
    written.push(Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk));
    return true;
  };

  beforeAll(async () => {
    jest.spyOn(process.stdout, 'write').mockImplementation(capture as never);
    jest.spyOn(process.stderr, 'write').mockImplementation(capture as never);
    for (const level of ['log', 'error', 'warn', 'info', 'debug'] as const) jest.spyOn(console, level).mockImplementation((...args) => capture(args.join(' ')));
    s = await startTestServices({ LOG_FORMAT: 'json', LOG_LEVEL: 'verbose' });
  });
  afterAll(async () => {
    await s.close();
    jest.restoreAllMocks();
  });

  const lines = () =>
    written
      .join('')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  it('runs a workflow full of secrets without writing one of them', async () => {
    const admin = vaultClient(s, s.adminToken);
    secrets.push(s.adminToken);
    // A new API user's token, and a login password.
    const created = await admin.post('/user', { USERNAME: 'log-api', ROLE: 'Password Administrator', ISAPIUSER: 'true' });
    const apiToken = created.body.operation.Details.AUTHTOKEN as string;
    secrets.push(apiToken);
    const loginPassword = 'Login-Secret-4821!';
    secrets.push(loginPassword);
    await request(s.vaultUrl).post(`${PKI}/user`).set('AUTHTOKEN', s.adminToken)
      .query({ INPUT_DATA: JSON.stringify({ operation: { Details: { USERNAME: 'log-login', PASSWORD: loginPassword, ROLE: 'Password User' } } }) });

    // Account passwords: created, changed, read (lean route, token in the query), A2A read.
    const first = 'First-Secret-77301#';
    const second = 'Second-Secret-55190#';
    secrets.push(first, second);
    const r = await createResource(s.vaultUrl, apiToken, { PASSWORD: first });
    const path = `/restapi/json/v1/resources/${r.resourceId}/accounts/${r.accountId}/password`;
    await request(s.vaultUrl).put(path).set('AUTHTOKEN', apiToken).type('form').send({ INPUT_DATA: inputData({ NEWPASSWORD: second, RESETTYPE: 'LOCAL' }) });
    const read = await request(s.vaultUrl).get(path).query({ AUTHTOKEN: apiToken }).set('X-Request-Id', 'trace-4711');
    expect(read.body.operation.Details.PASSWORD).toBe(second);
    expect(read.headers['x-request-id']).toBe('trace-4711');
    await request(s.vaultUrl).get(`/restapi/json/v1/resources/getResourceAccountDetails?APP_AUTHTOKEN=${apiToken}&APP_NAME=ANSIBLE&RESOURCEID=${r.resourceId}&ACCOUNTID=${r.accountId}`);
    // A refused password that breaks the policy, and a wrong token.
    await request(s.vaultUrl).put(path).set('AUTHTOKEN', apiToken).type('form').send({ INPUT_DATA: inputData({ NEWPASSWORD: 'x1' }) });
    const wrongToken = 'f00dfeedf00dfeedf00dfeedf00dfeedf00dfeedf00dfeedf00dfeedf00dfeed';
    secrets.push(wrongToken);
    await request(s.vaultUrl).get('/restapi/json/v1/resources').set('AUTHTOKEN', wrongToken);

    // A certificate with a passphrase, its passphrase and its private key.
    const passphrase = 'Cert-Passphrase-90210';
    secrets.push(passphrase);
    const post = (op: string, details: Record<string, unknown>) =>
      request(s.pkiUrl).post(`${PKI}/${op}`).set('AUTHTOKEN', apiToken).type('form').send({ INPUT_DATA: inputData(details) });
    const get = (op: string, details: Record<string, unknown>) =>
      request(s.pkiUrl).get(`${PKI}/${op}`).set('AUTHTOKEN', apiToken).query({ INPUT_DATA: inputData(details) });
    expect((await post('createCertificate', { CNAME: 'logs.example.test', PASSWORD: passphrase, VALIDITY: '30' })).body.result.status).toBe('Success');
    expect((await get('getCertificatePassphrase', { common_name: 'logs.example.test' })).body.details.Passphrase).toBe(passphrase);
    const key = await get('getCertificate', { common_name: 'logs.example.test', fileType: 'KEY' }).buffer(true);
    secrets.push(...pemBodyLines(String(key.text ?? key.body)));

    // An SSH key with a passphrase, exported with its private key; the pki path-segment token.
    const sshPassphrase = 'Ssh-Passphrase-31337';
    secrets.push(sshPassphrase);
    expect((await post('createsshkey', { keyName: 'log-key', keyType: 'ed25519', passPhrase: sshPassphrase })).body.result.status).toBe('Success');
    const exported = await post('exportSSHKey', { keyName: 'log-key', keyExportType: 'private' }).buffer(true);
    secrets.push(...pemBodyLines(String(exported.text ?? exported.body)));
    await request(s.pkiUrl).get(`${PKI}/getAllSSHKeys/AUTHTOKEN=${apiToken}`);

    expect(secrets.length).toBeGreaterThan(10);
    const all = written.join('');
    for (const secret of secrets) expect([secret, all.includes(secret)]).toEqual([secret, false]);
  });

  it('writes one JSON line per request with id, service, operation, user, organisation, client, outcome and duration', async () => {
    const parsed = lines();
    const requests = parsed.filter((l) => l.context === 'Request');
    expect(requests.length).toBeGreaterThan(15);
    for (const line of requests) {
      expect(line).toMatchObject({
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        level: 'log',
        requestId: expect.any(String),
        service: expect.stringMatching(/^(vault|pki)$/),
        operation: expect.any(String),
        outcome: expect.stringMatching(/^(success|failed|error|not_found|aborted)$/),
        durationMs: expect.any(Number),
        client: '127.0.0.1',
      });
      expect(line).toHaveProperty('userId');
      expect(line).toHaveProperty('orgId');
    }
    const traced = requests.find((l) => l.requestId === 'trace-4711');
    expect(traced).toMatchObject({ service: 'vault', operation: 'GET PASSWORD', outcome: 'success', userId: expect.any(Number), orgId: expect.any(Number) });
    expect(requests.find((l) => l.operation === 'GET RESOURCES' && l.userId === null)).toMatchObject({ outcome: 'failed' });
    expect(requests.find((l) => l.operation === 'CreateSSHKey')).toMatchObject({ service: 'pki', outcome: 'success' });
  });

  it('generates a request id when the caller sends none (or an unusable one) and returns it', async () => {
    const plain = await request(s.vaultUrl).get('/health');
    expect(plain.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const odd = await request(s.vaultUrl).get('/health').set('X-Request-Id', 'a b "quoted" {json}');
    expect(odd.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('logs a fault with its error id, on the error line (with the stack) and on the request line', async () => {
    await s.dataSource.query('ALTER TABLE password_policies RENAME TO password_policies_away');
    let res;
    try {
      res = await request(s.vaultUrl).get('/restapi/json/v1/passwordpolicies').set('AUTHTOKEN', s.adminToken).set('X-Request-Id', 'fault-1');
    } finally {
      await s.dataSource.query('ALTER TABLE password_policies_away RENAME TO password_policies');
    }
    expect(res.status).toBe(500);
    const id = /error id ([0-9a-f-]{36})/.exec(res.body.operation.result.message)![1];
    const parsed = lines();
    expect(parsed.find((l) => l.requestId === 'fault-1')).toMatchObject({ context: 'Request', outcome: 'error', status: 500, errorId: id });
    expect(parsed.find((l) => l.level === 'error' && l.errorId === id)).toMatchObject({ context: 'Errors', message: expect.stringContaining('password_policies') });
  });

  it('keeps Nest route-mapping lines at debug level', () => {
    const mapping = lines().filter((l) => l.context === 'RouterExplorer' || l.context === 'RoutesResolver');
    expect(mapping.length).toBeGreaterThan(50);
    expect(new Set(mapping.map((l) => l.level))).toEqual(new Set(['debug']));
  });
});

/** The base64 lines of a PEM private key: any of them in a log would leak key material. */
function pemBodyLines(text: string): string[] {
  const body = /-----BEGIN [A-Z ]*PRIVATE KEY-----([\s\S]+?)-----END/.exec(text)?.[1] ?? '';
  const out = body.split(/\r?\n/).filter((l) => l.length >= 40 && !l.includes(':'));
  if (out.length === 0) throw new Error(`No private key in: ${text.slice(0, 200)}`);
  return out;
}
