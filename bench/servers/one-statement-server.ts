import { createServer, ServerResponse } from 'node:http';
import { Pool } from 'pg';
import { ROLE_PERMISSIONS } from '@app/auth';
import { hashToken, masterKeyId, open, parseKeyMaterial, unwrapKey } from '@app/crypto';

// The hardware's ceiling for GET .../password: a minimal node:http + pg program doing the
// read in ONE statement with the simplest correct check (token → user not locked with a
// role that may retrieve, organisation, owner or a direct user share of the resource or
// the account, audit insert as a data-modifying CTE), then decrypting. No groups,
// resource groups, access control, settings or help-desk rule: the full server's extra
// work is what the ratio measures.
const READ = `
WITH u AS (
  SELECT u.id, u.org_id, u.username FROM api_tokens t JOIN users u ON u.id = t.user_id
  WHERE t.token_hash = $1 AND NOT u.locked AND u.role = ANY($2::text[])
), a AS (
  SELECT a.id, a.name, a.password, r.id AS rid, r.name AS rname
  FROM u JOIN resources r ON r.id = $3 AND r.org_id = u.org_id JOIN accounts a ON a.id = $4 AND a.resource_id = r.id
  WHERE r.owner_id = u.id OR EXISTS (SELECT 1 FROM shares s WHERE s.resource_id = r.id AND s.user_id = u.id
                                     AND (s.account_id IS NULL OR s.account_id = a.id))
), logged AS (
  INSERT INTO audit (org_id, category, operation, outcome, actor_id, actor_name, ip, resource_id, resource_name, account_id, account_name)
  SELECT u.org_id, 'Resource', 'Password Retrieved', 'Success', u.id, u.username, $5, a.rid, a.rname, a.id, a.name FROM u, a
  RETURNING id
)
SELECT a.password, (SELECT count(*) FROM logged)::int AS logged FROM a`;

const RETRIEVE_ROLES = Object.entries(ROLE_PERMISSIONS)
  .filter(([, permissions]) => permissions.includes('password.retrieve'))
  .map(([role]) => role);

async function main(): Promise<void> {
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_SIZE ?? 20) });
  const master = parseKeyMaterial(process.env.MASTER_KEY!);
  const keys = new Map<number, Buffer>();
  for (const row of (await pool.query('SELECT version, wrapped FROM data_keys WHERE master_key_id = $1', [masterKeyId(master)])).rows) {
    keys.set(row.version, unwrapKey(master, row.wrapped));
  }
  const route = /^\/restapi\/json\/v1\/resources\/(\d+)\/accounts\/(\d+)\/password$/;
  const server = createServer(async (req, res) => {
    try {
      const m = route.exec(req.url ?? '');
      const token = req.headers['authtoken'];
      if (!m || typeof token !== 'string') return send(res, 404, { error: 'no' });
      const { rows } = await pool.query({
        name: 'read',
        text: READ,
        values: [hashToken(token), RETRIEVE_ROLES, Number(m[1]), Number(m[2]), req.socket.remoteAddress],
      });
      const row = rows[0];
      if (!row) return send(res, 404, { error: 'none' });
      if (row.logged !== 1) throw new Error('not audited');
      const blob: Buffer = row.password;
      const password = open(keys.get(blob.readUInt32BE(1))!, blob, 'accounts.password').toString('utf8');
      send(res, 200, { operation: { name: 'GET PASSWORD', result: { status: 'Success', message: 'Password fetched successfully' }, Details: { PASSWORD: password } } });
    } catch (error) {
      send(res, 500, { error: String(error) });
    }
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
  });
  process.once('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(JSON.stringify(body));
}

main();
