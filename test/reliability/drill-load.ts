import { inputData } from '../support/http';
import { rawRequest } from '../support/raw-http';
import { ServiceProcess } from './service-process';

export type Kind = 'read' | 'change' | 'request' | 'checkout' | 'checkin';

export interface Sent {
  kind: Kind;
  worker: number;
  /** The account the request is about. */
  aid: number;
  via: string;
  http: number;
  /** Success, Failed (refused or unavailable), or 'no answer'. */
  status: string;
  message: string;
  /** When the request was sent and when its answer came, ms since the epoch. */
  sentAt: number;
  doneAt: number;
  wrote?: string;
}

export interface DrillAccount {
  rid: number;
  aid: number;
}

export interface DrillUsers {
  adminToken: string;
  /** Two requesters per check-out account, competing for it. */
  requesters: { token: string; userId: number }[];
}

let serial = 0;

/**
 * Password reads, password changes and check-out / check-in cycles against the instances
 * (worker w uses instances[w % n]) until stop(). Every answer is recorded with its times.
 */
export function driveDrill(instances: ServiceProcess[], users: DrillUsers, changeAccounts: DrillAccount[], checkoutAccounts: DrillAccount[]) {
  const sent: Sent[] = [];
  let running = true;
  const attempt = async (kind: Kind, worker: number, aid: number, token: string, method: string, path: string, details?: Record<string, unknown>, wrote?: string) => {
    const via = instances[worker % instances.length].url;
    const sentAt = Date.now();
    const answer = await rawRequest(via, {
      method,
      path,
      headers: { AUTHTOKEN: token, ...(details ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}) },
      body: details ? `INPUT_DATA=${encodeURIComponent(inputData(details))}` : undefined,
    }, 60_000).catch((error: Error) => ({ status: 0, json: undefined, text: error.message }));
    const result = answer.json?.operation?.result ?? answer.json?.result;
    const record: Sent = { kind, worker, aid, via, http: answer.status, status: result?.status ?? 'no answer', message: String(result?.message ?? answer.text ?? '').slice(0, 200), sentAt, doneAt: Date.now(), wrote };
    sent.push(record);
    // A refused or unavailable answer: a short pause, as a client that retries would.
    if (record.status !== 'Success') await new Promise((r) => setTimeout(r, 100));
    return record;
  };
  const changer = async (w: number) => {
    const { rid, aid } = changeAccounts[w];
    for (let i = 0; running; i++) {
      const path = `/restapi/json/v1/resources/${rid}/accounts/${aid}/password`;
      if (i % 2 === 0) {
        await attempt('read', w, aid, users.adminToken, 'GET', path);
        continue;
      }
      const wrote = `Drill-${w}-${++serial}-Xy9!pass`;
      await attempt('change', w, aid, users.adminToken, 'PUT', path, { NEWPASSWORD: wrote, RESETTYPE: 'LOCAL', REASON: 'drill' }, wrote);
    }
  };
  const checkouter = async (w: number) => {
    const { aid } = checkoutAccounts[Math.floor(w / 2)];
    const { token, userId } = users.requesters[w % 2];
    const worker = changeAccounts.length + w;
    while (running) {
      await attempt('request', worker, aid, token, 'POST', `/restapi/json/v1/accounts/${aid}/requestpassword`, { REASON: 'drill' });
      const out = await attempt('checkout', worker, aid, token, 'POST', `/restapi/json/v1/accounts/${aid}/checkout`, { REASON: 'drill' });
      if (out.status === 'Success') await new Promise((r) => setTimeout(r, 20));
      await attempt('checkin', worker, aid, token, 'POST', `/restapi/json/v1/accounts/${aid}/requester/${userId}/checkin`, { PASSWDID: String(aid), REQUESTEDID: String(userId) });
    }
  };
  const done = Promise.all([...changeAccounts.map((_, w) => changer(w)), ...Array.from({ length: checkoutAccounts.length * 2 }, (_, w) => checkouter(w))]);
  return {
    sent,
    acked: (kind?: Kind) => sent.filter((s) => s.status === 'Success' && (!kind || s.kind === kind)).length,
    stop: async () => {
      running = false;
      await done;
      return sent;
    },
  };
}

/**
 * Pairs of acknowledged check-outs of one account by different workers where the second was
 * granted while the first was certainly held: acknowledged after the first's acknowledgement
 * and before its holder sent the check-in (or its timer ran out). Empty when none.
 */
export function doubleCheckouts(sent: Sent[], checkoutMs: number): string[] {
  const found: string[] = [];
  const outs = sent.filter((s) => s.kind === 'checkout' && s.status === 'Success');
  for (const a of outs) {
    const checkin = sent.find((s) => s.kind === 'checkin' && s.worker === a.worker && s.sentAt >= a.doneAt);
    const heldUntil = Math.min(checkin?.sentAt ?? Infinity, a.doneAt + checkoutMs);
    for (const b of outs) {
      if (b.aid !== a.aid || b.worker === a.worker) continue;
      if (b.sentAt > a.doneAt && b.doneAt < heldUntil) found.push(`worker ${b.worker} checked out at ${b.doneAt} while worker ${a.worker} held it (${a.doneAt}-${heldUntil})`);
    }
  }
  return found;
}
