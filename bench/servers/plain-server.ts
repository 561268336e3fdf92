import { createServer } from 'node:http';
import { Pool } from 'pg';
import { ROLE_PERMISSIONS } from '@app/auth';
import { hashToken, open } from '@app/crypto';
import { masterKeyId, parseKeyMaterial, unwrapKey } from '@app/crypto';

// The baseline: a minimal node:http + pg program doing the same work as GET .../password
// (token look-up, permission check, owner or direct share, decrypt, audit insert), nothing else.
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
      const users = await pool.query({
        name: 'user',
        text: 'SELECT u.id, u.org_id, u.username, u.role, u.is_super_admin FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = $1 AND NOT u.locked',
        values: [hashToken(token)],
      });
      const user = users.rows[0];
      if (!user || !ROLE_PERMISSIONS[user.role as keyof typeof ROLE_PERMISSIONS].includes('password.retrieve')) {
        return send(res, 200, { error: 'auth' });
      }
      const accounts = await pool.query({
        name: 'account',
        text: `SELECT a.id, a.name, a.password, r.id AS rid, r.name AS rname FROM accounts a JOIN resources r ON r.id = a.resource_id
               WHERE a.id = $1 AND r.id = $2 AND r.org_id = $3 AND ($4 OR r.owner_id = $5 OR EXISTS (
                 SELECT 1 FROM shares s WHERE s.resource_id = r.id AND s.user_id = $5 AND (s.account_id IS NULL OR s.account_id = a.id)))`,
        values: [Number(m[2]), Number(m[1]), user.org_id, user.is_super_admin, user.id],
      });
      const account = accounts.rows[0];
      if (!account) return send(res, 404, { error: 'none' });
      await pool.query({
        name: 'audit',
        text: `INSERT INTO audit (org_id, category, operation, outcome, actor_id, actor_name, ip, resource_id, resource_name, account_id, account_name)
               VALUES ($1, 'Resource', 'Password Retrieved', 'Success', $2, $3, $4, $5, $6, $7, $8)`,
        values: [user.org_id, user.id, user.username, req.socket.remoteAddress, account.rid, account.rname, account.id, account.name],
      });
      const blob: Buffer = account.password;
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

function send(res: import('node:http').ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(text);
}

main();
