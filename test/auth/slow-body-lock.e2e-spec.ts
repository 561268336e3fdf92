import { connect } from 'node:net';
import { createResource } from '../support/factories';
import { createUserWithToken, startTestServices, TestServices } from '../support/app';
import { inputData } from '../support/http';

// The user behind a token is looked up once before a form body is read, and that look-up
// stood for the guard's. A body trickled in slowly then kept a user locked meanwhile able
// to finish one write. A body that takes longer than a second is followed by a fresh look-up.
describe('a user locked while a slow form body arrives is refused', () => {
  let s: TestServices;
  beforeAll(async () => {
    s = await startTestServices();
  });
  afterAll(() => s.close());

  const LOCKED = 'User account is locked. Contact your administrator.';
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const lock = (userId: number) => s.dataSource.query('UPDATE users SET locked = true WHERE id = $1', [userId]);

  /** Sends the head and half the body, runs `meanwhile`, then the rest; the JSON answer. */
  function slowForm(method: string, path: string, token: string, fields: Record<string, string>, meanwhile: () => Promise<unknown>): Promise<any> {
    const body = new URLSearchParams(fields).toString();
    const half = Math.floor(body.length / 2);
    const socket = connect(Number(new URL(s.vaultUrl).port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    const ended = new Promise<void>((resolve, reject) => {
      socket.on('end', resolve);
      socket.on('error', reject);
    });
    return (async () => {
      socket.write(
        `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAUTHTOKEN: ${token}\r\nContent-Type: application/x-www-form-urlencoded\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body.slice(0, half)}`,
      );
      await sleep(300); // the early look-up, made when the head arrives, has happened
      await meanwhile();
      await sleep(1200);
      socket.write(body.slice(half));
      await ended;
      const text = Buffer.concat(chunks).toString('utf8');
      return JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
    })();
  }

  it('a password change (lean route): refused as locked, the password unchanged', async () => {
    const user = await createUserWithToken(s, 'slow-changer', 'Password Administrator');
    const r = await createResource(s.vaultUrl, user.token);
    const [before] = await s.dataSource.query('SELECT password FROM accounts WHERE id = $1', [r.accountId]);
    const answer = await slowForm(
      'PUT',
      `/restapi/json/v1/resources/${r.resourceId}/accounts/${r.accountId}/password`,
      user.token,
      { INPUT_DATA: inputData({ NEWPASSWORD: 'Slowly-Changed-Pw-99!', REASON: 'slow' }) },
      () => lock(user.id),
    );
    expect(answer.operation.result).toEqual({ status: 'Failed', message: LOCKED });
    const [after] = await s.dataSource.query('SELECT password FROM accounts WHERE id = $1', [r.accountId]);
    expect(after.password.equals(before.password)).toBe(true);
    const changed = await s.dataSource.query(`SELECT 1 FROM audit WHERE account_id = $1 AND operation = 'Password Changed'`, [r.accountId]);
    expect(changed).toEqual([]);
  });

  it('a resource creation (through the controller): refused as locked, nothing created', async () => {
    const user = await createUserWithToken(s, 'slow-creator', 'Password Administrator');
    const answer = await slowForm(
      'POST',
      '/restapi/json/v1/resources',
      user.token,
      { INPUT_DATA: inputData({ RESOURCENAME: 'slow-res', RESOURCETYPE: 'Linux', ACCOUNTNAME: 'root', PASSWORD: 'Slow-Resource-Pw-1!' }) },
      () => lock(user.id),
    );
    expect(answer.operation.result).toEqual({ status: 'Failed', message: LOCKED });
    expect(await s.dataSource.query(`SELECT 1 FROM resources WHERE name = 'slow-res'`)).toEqual([]);
  });
});
