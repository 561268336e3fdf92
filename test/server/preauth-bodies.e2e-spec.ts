import request from 'supertest';
import { AUTH_FAILED_MESSAGE } from '@app/http';
import { createUserWithToken, startTestServices, TestServices } from '../support/app';
import { HeldAnswer, sendAllThenRead, sendAndHold } from '../support/held-body';

const KiB = 1024;
const MiB = 1024 * KiB;
/** What may be read of a body before its caller is known (PREAUTH_BODY_LIMIT), and one byte more. */
const PAST_LIMIT = 64 * KiB + 1;
const LOCKED_MESSAGE = 'User account is locked. Contact your administrator.';

let nextAddress = 0;
/** A loopback source address of its own per request: the failed-authentication throttle stays out of the way. */
const fresh = () => `127.3.${Math.floor(nextAddress / 250)}.${(nextAddress++ % 250) + 1}`;

const boundary = 'preauth-boundary';
const multipartType = `multipart/form-data; boundary=${boundary}`;
/** The start of a multipart body whose first field is `size` bytes long (the body is never finished). */
function bigFieldStart(bytes: number): Buffer {
  return Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="INPUT_DATA"\r\n\r\n`), Buffer.alloc(bytes, 'x')]).subarray(0, bytes);
}
function multipart(parts: { name: string; value: string | Buffer; filename?: string }[]): Buffer {
  const pieces = parts.map((p) =>
    Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"` : ''}\r\n\r\n`),
      Buffer.from(p.value),
      Buffer.from('\r\n'),
    ]),
  );
  return Buffer.concat([...pieces, Buffer.from(`--${boundary}--\r\n`)]);
}

describe('nothing before authentication holds memory', () => {
  let s: TestServices;
  let lockedToken: string;
  beforeAll(async () => {
    s = await startTestServices({ MAX_FILE_SIZE: String(MiB), MAX_UPLOAD_TOTAL: String(2 * MiB) });
    const locked = await createUserWithToken(s, 'preauth-locked', 'Password Administrator');
    await s.dataSource.query(`UPDATE users SET locked = true WHERE id = $1`, [locked.id]);
    lockedToken = locked.token;
  });
  afterAll(async () => {
    await s?.close();
  });

  // Each client sends 64 KiB + 1 byte of a far longer body and then nothing: the refusal
  // has to come from what the server read, never from waiting for the rest.
  const held: [string, () => string, string, (bytes: number) => { headers: Record<string, string | number>; body: Buffer; chunked?: boolean }, string][] = [
    ['no token, form body (lean route)', () => s.vaultUrl, '/restapi/json/v1/resources', (n) => ({ headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': 10 * MiB }, body: Buffer.alloc(n, 'a') }), AUTH_FAILED_MESSAGE],
    ['no token, chunked form body (lean route)', () => s.vaultUrl, '/restapi/json/v1/resources', (n) => ({ headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: Buffer.alloc(n, 'a'), chunked: true }), AUTH_FAILED_MESSAGE],
    ['no token, chunked JSON body', () => s.pkiUrl, '/api/pki/restapi/createSSHKey', (n) => ({ headers: { 'Content-Type': 'application/json' }, body: Buffer.concat([Buffer.from('{"operation":{"Details":{"keyName":"'), Buffer.alloc(n, 'k')]).subarray(0, n), chunked: true }), AUTH_FAILED_MESSAGE],
    ['no token, multipart with 1 MiB fields', () => s.pkiUrl, '/api/pki/restapi/addSSHKey', (n) => ({ headers: { 'Content-Type': multipartType, 'Content-Length': 2 * MiB }, body: bigFieldStart(n) }), AUTH_FAILED_MESSAGE],
    ['no token, chunked multipart', () => s.vaultUrl, '/api/pki/restapi/addSSHKey', (n) => ({ headers: { 'Content-Type': multipartType }, body: bigFieldStart(n), chunked: true }), AUTH_FAILED_MESSAGE],
    ['a token past the first 64 KiB of a form body', () => s.vaultUrl, '/restapi/json/v1/resources', (n) => ({ headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': 10 * MiB }, body: Buffer.from(`PAD=${'p'.repeat(n)}&AUTHTOKEN=${s.adminToken}`).subarray(0, n) }), AUTH_FAILED_MESSAGE],
    ['an unknown token in a form field', () => s.vaultUrl, '/restapi/json/v1/resources', (n) => ({ headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': 10 * MiB }, body: Buffer.from(`AUTHTOKEN=${'f'.repeat(64)}&INPUT_DATA=${'i'.repeat(n)}`).subarray(0, n) }), AUTH_FAILED_MESSAGE],
    ['an unknown token in a multipart field', () => s.pkiUrl, '/api/pki/restapi/addSSHKey', (n) => ({ headers: { 'Content-Type': multipartType }, body: Buffer.concat([multipart([{ name: 'AUTHTOKEN', value: 'f'.repeat(64) }]).subarray(0, -`--${boundary}--\r\n`.length), bigFieldStart(n)]).subarray(0, n), chunked: true }), AUTH_FAILED_MESSAGE],
  ];
  it.each(held)('%s: refused having read at most 64 KiB', async (_, base, path, build, message) => {
    const answer = await sendAndHold(base(), { method: 'POST', path, ...build(PAST_LIMIT), localAddress: fresh() });
    expect(answer).toEqual({ status: 200, message, connection: 'close' });
  });

  it.each([
    ['a form body (lean route)', () => s.vaultUrl, '/restapi/json/v1/resources', 'application/x-www-form-urlencoded'],
    ['a multipart body', () => s.pkiUrl, '/api/pki/restapi/addSSHKey', multipartType],
  ])('a locked user’s %s is refused unread, an unknown token’s too', async (_, base, path, type) => {
    for (const [token, message] of [
      [lockedToken, LOCKED_MESSAGE],
      ['u'.repeat(64), AUTH_FAILED_MESSAGE],
    ]) {
      const answer = await sendAndHold(base(), { method: 'POST', path, headers: { AUTHTOKEN: token, 'Content-Type': type, 'Content-Length': MiB }, body: Buffer.alloc(0), localAddress: fresh() });
      expect(answer).toEqual({ status: 200, message, connection: 'close' });
    }
  });

  it('a token in the first 64 KiB of a form body still admits its caller to a larger body', async () => {
    const input = JSON.stringify({ operation: { Details: { RESOURCENAME: 'token-in-body', ACCOUNTNAME: 'a', RESOURCETYPE: 'Linux', PASSWORD: 'Xy-12345678!' } } });
    const form = `AUTHTOKEN=${s.adminToken}&INPUT_DATA=${encodeURIComponent(input)}&PAD=${'p'.repeat(200 * KiB)}`;
    const res = await request(s.vaultUrl).post('/restapi/json/v1/resources').set('Content-Type', 'application/x-www-form-urlencoded').send(form);
    expect(res.body.operation.result).toEqual({ status: 'Success', message: 'Resource token-in-body has been added successfully' });

    const upload = multipart([
      { name: 'AUTHTOKEN', value: s.adminToken },
      { name: 'INPUT_DATA', value: JSON.stringify({ operation: { Details: { keyName: 'body-token-key' } } }) },
      { name: 'File', value: Buffer.alloc(300 * KiB, 'k'), filename: 'key.pem' },
    ]);
    const up = await request(s.pkiUrl).post('/api/pki/restapi/addSSHKey').set('Content-Type', multipartType).send(upload);
    // Read past the first 64 KiB: the import itself fails on the garbage key, not on the caller.
    expect(up.body.result?.message ?? up.body.operation?.result?.message).not.toBe(AUTH_FAILED_MESSAGE);
    expect(JSON.stringify(up.body)).toMatch(/key/i);
  });

  it('multipart text fields count against MAX_UPLOAD_TOTAL, with or without a Content-Length', async () => {
    const fields = Array.from({ length: 3 }, (_, i) => ({ name: `F${i}`, value: 'v'.repeat(MiB - 100) }));
    const body = multipart([{ name: 'INPUT_DATA', value: '{"keyName":"fields"}' }, ...fields]);
    const expected = `The uploaded files and fields are larger than the limit of ${2 * MiB} bytes in total`;
    for (const chunked of [false, true]) {
      const answer = await sendAllThenRead(s.pkiUrl, {
        method: 'POST',
        path: '/api/pki/restapi/addSSHKey',
        headers: { AUTHTOKEN: s.adminToken, 'Content-Type': multipartType, ...(chunked ? {} : { 'Content-Length': body.length }) },
        body,
        chunked,
      });
      expect(answer).toMatchObject({ status: 200, message: expected });
    }
  });

  it('a client that writes its whole refused upload before reading still reads the refusal', async () => {
    const body = Buffer.concat([bigFieldStart(10 * MiB)]);
    const tries = Array.from({ length: 10 }, (_, i) =>
      sendAllThenRead(s.pkiUrl, {
        method: 'POST',
        path: '/api/pki/restapi/addSSHKey',
        // Connection: close, as Node's http client sends without an agent: the server closes after its answer.
        headers: { ...(i % 2 ? { AUTHTOKEN: 'n'.repeat(64) } : {}), 'Content-Type': multipartType, 'Content-Length': body.length, Connection: 'close' },
        body,
        localAddress: fresh(),
      }),
    );
    const answers = await Promise.all(tries);
    expect(answers).toEqual(Array(10).fill({ status: 200, message: AUTH_FAILED_MESSAGE, connection: 'close' } satisfies HeldAnswer));
  });
});
