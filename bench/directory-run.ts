import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import { Attribute, Change } from 'ldapts';
import { startSamba, unicodePwd } from '../test/support/samba';
import { startBenchVault } from './peer-bench';

const USERS = Number(process.env.BENCH_USERS ?? 5000);
const GROUPS = Number(process.env.BENCH_GROUPS ?? 200);
const PARALLEL = 8;
async function main(): Promise<void> {
  const [vault, dc] = await Promise.all([startBenchVault('directory'), startSamba()]);
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

    const { call } = vault;
    const made = await call('POST', '/resources', { RESOURCENAME: 'lab.test', RESOURCETYPE: 'Windows Domain', DNSNAME: dc.host, ACCOUNTNAME: dc.admin.username, PASSWORD: dc.admin.password });
    const rid = (made.Details as { RESOURCEID: string }).RESOURCEID;
    await call('PUT', `/resources/${rid}/remotepasswordreset`, { ACCOUNTNAME: dc.admin.username, DNSNAME: dc.host, CACERT: dc.certPem, BASEDN: dc.baseDn });
    await call('PUT', '/directory', { RESOURCENAME: 'lab.test', USERBASE: ou, SYNCINTERVAL: 0 });

    started = performance.now();
    const first = (await call('POST', '/directory/sync', {})).Details!;
    const importSeconds = (performance.now() - started) / 1000;
    started = performance.now();
    const second = (await call('POST', '/directory/sync', {})).Details!;
    const unchangedSeconds = (performance.now() - started) / 1000;
    console.log(`directory: import of ${first.USERS} users in ${first.GROUPS} groups (${first.CREATED} created, ${first.MEMBERSHIPSADDED} memberships) in ${importSeconds.toFixed(1)} s (bar: 60 s)`);
    console.log(`directory: synchronisation with no change (${second.UPDATED} updated, ${second.MEMBERSHIPSADDED} added) in ${unchangedSeconds.toFixed(1)} s (bar: 10 s)`);
  } finally {
    await vault.stop();
    await dc.stop();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
