import { displayTime } from '../../apps/vault/src/common/format';
import { startTestServices, TestServices } from '../support/app';
import { controlledResource, share, TestUser, user, workflow } from './workflow-helpers';

/** DD/mm/yyyy HH:mm in the server's time zone (the test runs in the server's process). */
function apiTime(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getDate())}/${p(d.getMonth() + 1)}/${d.getFullYear()} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

const inMinutes = (n: number) => {
  const d = new Date(Date.now() + n * 60_000);
  d.setSeconds(0, 0);
  return d;
};

/**
 * PAM360's request for later (ACCESS later, STARTTIME, ENDTIME): the approvers see the window,
 * the password cannot be checked out before it opens, a check-out ends by its end, and a bad
 * window is Failed with nothing written.
 */
describe('a password request for a window of time (PAM360 ACCESS later)', () => {
  let s: TestServices;
  let w: ReturnType<typeof workflow>;
  let owner: TestUser;
  let alice: TestUser;

  beforeAll(async () => {
    s = await startTestServices();
    w = workflow(s.vaultUrl);
    owner = await user(s, 'Password Administrator', 'owner');
    alice = await user(s, 'Password User', 'alice');
  });
  afterAll(() => s.close());

  it('shows the window to approvers, refuses a check-out before it opens, and ends the check-out with it', async () => {
    const r = await controlledResource(s, owner, { CHECKOUT_MINUTES: '240' });
    await share(s, r.resourceId, alice.id);
    const start = inMinutes(60);
    const end = inMinutes(120);
    const asked = await w.request(alice, r.accountId, { REASON: 'release', ACCESS: 'later', STARTTIME: apiTime(start), ENDTIME: apiTime(end) });
    expect(asked.result.status).toBe('Success');
    const [row] = await s.dataSource.query('SELECT id, window_start, window_end, expires_at FROM password_requests WHERE account_id = $1', [r.accountId]);
    expect([row.window_start, row.window_end, row.expires_at]).toEqual([start, end, end]);

    const pending = await w.pending(owner);
    expect(pending.Details[0].PASSWORDREQUESTLIST[0]).toMatchObject({ START_TIME: displayTime(start), END_TIME: displayTime(end) });
    expect((await w.approve(owner, r.accountId, alice.id)).result.status).toBe('Success');
    const [approved] = await s.dataSource.query('SELECT expires_at FROM password_requests WHERE id = $1', [row.id]);
    expect(approved.expires_at).toEqual(end);

    const early = await w.checkout(alice, r.accountId);
    expect(early.result).toEqual({ status: 'Failed', message: expect.stringContaining(`check it out from ${displayTime(start)}`) });
    expect((await w.password(alice, r.resourceId, r.accountId)).Details.PASSWORD).not.toBe(r.password);

    // The window opens (moved, rather than waited for): the check-out ends with the window, not 240 min later.
    await s.dataSource.query(`UPDATE password_requests SET window_start = now() - interval '1 minute', window_end = now() + interval '30 minutes', expires_at = now() + interval '30 minutes' WHERE id = $1`, [row.id]);
    expect((await w.checkout(alice, r.accountId)).result.status).toBe('Success');
    const [out] = await s.dataSource.query('SELECT checkout_until <= window_end AS bounded, checkout_until > now() + interval \'29 minutes\' AS whole FROM password_requests WHERE id = $1', [row.id]);
    expect(out).toEqual({ bounded: true, whole: true });
    expect((await w.password(alice, r.resourceId, r.accountId)).Details.PASSWORD).toBe(r.password);
    const [audit] = await s.dataSource.query(`SELECT description FROM audit WHERE request_id = $1 AND operation = 'Password Requested'`, [row.id]);
    expect(audit.description).toBe(`For ${displayTime(start)} to ${displayTime(end)}`);
  });

  it.each([
    [{ ACCESS: 'later', STARTTIME: 'tomorrow', ENDTIME: 'later' }, 'STARTTIME is required with ACCESS later, as DD/mm/yyyy HH:mm'],
    [{ ACCESS: 'later', STARTTIME: apiTime(inMinutes(-120)), ENDTIME: apiTime(inMinutes(-60)) }, 'ENDTIME is in the past'],
    [{ ACCESS: 'later', STARTTIME: apiTime(inMinutes(60)), ENDTIME: apiTime(inMinutes(30)) }, 'ENDTIME must be after STARTTIME'],
    [{ ACCESS: 'whenever' }, 'ACCESS must be now or later'],
  ])('refuses %j as Failed, with no request written', async (details, message) => {
    const r = await controlledResource(s, owner);
    await share(s, r.resourceId, alice.id);
    expect((await w.request(alice, r.accountId, { REASON: 'x', ...details })).result).toEqual({ status: 'Failed', message });
    expect(await s.dataSource.query('SELECT id FROM password_requests WHERE account_id = $1', [r.accountId])).toEqual([]);
  });
});
