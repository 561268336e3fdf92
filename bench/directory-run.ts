import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import { Attribute, Change } from 'ldapts';
import { Client } from 'pg';
import { runMigrations } from '@app/persistence';
import { startTestServices } from '../test/support/app';
import { startSamba, unicodePwd } from '../test/support/samba';

const USERS = Number(process.env.BENCH_USERS ?? 5000);
const GROUPS = Number(process.env.BENCH_GROUPS ?? 200);
const PARALLEL = 8;
const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A database of its own, migrated, dropped at the end. */
async function database(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `bench_directory_${process.pid}`;
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = ADMIN_URL.replace(/\/[^/]*$/, `/${name}`);
  await runMigrations(url);
  return {
    url,
    drop: async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

async function main(): Promise<void> {
  const db = await database();
  const [s, dc] = await Promise.all([startTestServices({ DB_POOL_SIZE: '10' }, db.url), startSamba()]);
  try {
    const ou = await dc.createOu('Bench');
    let started = performance.now();
    const groups: string[] = [];
    for (let g = 0; g < GROUPS; g++) groups.push(await dc.createGroup(`bench-group-${g}`, ou));
    const root = await dc.root();
    const members: string[][] = groups.map(() => []);
    for (let next = 0; next < USERS; ) {
      const batch = [];
      for (let k = 0; k < PARALLEL * 4 && next < USERS; k++, next++) {
        const i = next;
        const dn = `CN=bench-user-${i},${ou}`;
        members[i % GROUPS].push(dn);
        batch.push(
          root.add(dn, {
            objectClass: ['top', 'person', 'organizationalPerson', 'user'],
            sAMAccountName: `bench-user-${i}`,
            mail: `bench-user-${i}@lab.test`,
            displayName: `Bench User ${i}`,
            unicodePwd: unicodePwd(`Bench-User-Pass-${i}!`) as unknown as string,
            userAccountControl: '512',
          }),
        );
      }
      await Promise.all(batch);
    }
    for (const [g, dns] of members.entries()) {
      if (dns.length) await root.modify(groups[g], new Change({ operation: 'add', modification: new Attribute({ type: 'member', values: dns }) }));
    }
    await root.unbind();
    console.log(`Samba: ${USERS} users in ${GROUPS} groups created in ${((performance.now() - started) / 1000).toFixed(1)} s (set-up, not measured)`);

    const call = async (method: string, path: string, details?: Record<string, unknown>) => {
      const res = await fetch(`${s.vaultUrl}/restapi/json/v1${path}`, {
        method,
        headers: { AUTHTOKEN: s.adminToken, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: details ? `INPUT_DATA=${encodeURIComponent(JSON.stringify({ operation: { Details: details } }))}` : undefined,
      });
      const op = ((await res.json()) as { operation: { result: { status: string; message: string }; Details?: Record<string, unknown> } }).operation;
      if (op.result.status !== 'Success') throw new Error(`${method} ${path}: ${op.result.message}`);
      return op;
    };
    const made = await call('POST', '/resources', { RESOURCENAME: 'lab.test', RESOURCETYPE: 'Windows Domain', DNSNAME: dc.host, ACCOUNTNAME: dc.admin.username, PASSWORD: dc.admin.password });
    const rid = (made.Details as { RESOURCEID: string }).RESOURCEID;
    await call('PUT', `/resources/${rid}/remotepasswordreset`, { ACCOUNTNAME: dc.admin.username, DNSNAME: dc.host, CACERT: dc.certPem, BASEDN: dc.baseDn });
    await call('PUT', '/directory', { RESOURCENAME: 'lab.test', USERBASE: ou, SYNCINTERVAL: 0 });

    started = performance.now();
    const first = (await call('POST', '/directory/sync')).Details!;
    const importSeconds = (performance.now() - started) / 1000;
    started = performance.now();
    const second = (await call('POST', '/directory/sync')).Details!;
    const unchangedSeconds = (performance.now() - started) / 1000;
    console.log(`directory: import of ${first.USERS} users in ${first.GROUPS} groups (${first.CREATED} created, ${first.MEMBERSHIPSADDED} memberships) in ${importSeconds.toFixed(1)} s (bar: 60 s)`);
    console.log(`directory: synchronisation with no change (${second.UPDATED} updated, ${second.MEMBERSHIPSADDED} added) in ${unchangedSeconds.toFixed(1)} s (bar: 10 s)`);
  } finally {
    await s.close();
    await dc.stop();
    await db.drop();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
