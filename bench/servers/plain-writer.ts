import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { Pool } from 'pg';
import { hashToken, masterKeyId, parseKeyMaterial, seal, unwrapKey } from '@app/crypto';

// The baseline for the write benchmark: a minimal node:http + pg program that creates a
// resource with one account (POST /resources) or changes a password (PUT .../password):
// token look-up, the insert or update, and the audit row, in one transaction. Nothing else.
async function main(): Promise<void> {
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_SIZE ?? 20) });
  const master = parseKeyMaterial(process.env.MASTER_KEY!);
  const [row] = (await pool.query('SELECT version, wrapped FROM data_keys WHERE master_key_id = $1 ORDER BY version DESC LIMIT 1', [masterKeyId(master)])).rows;
  const version: number = row.version;
  const key = unwrapKey(master, row.wrapped);
  const change = /^\/restapi\/json\/v1\/resources\/(\d+)\/accounts\/(\d+)\/password$/;
  const server = createServer(async (req, res) => {
    const client = await pool.connect();
    try {
      const details = JSON.parse(new URLSearchParams(await body(req)).get('INPUT_DATA') ?? '{}').operation.Details;
      const [user] = (
        await client.query({
          name: 'user',
          text: 'SELECT u.id, u.org_id, u.username FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = $1 AND NOT u.locked',
          values: [hashToken(String(req.headers['authtoken']))],
        })
      ).rows;
      if (!user) return send(res, { error: 'auth' });
      await client.query('BEGIN');
      const m = change.exec(req.url ?? '');
      if (req.method === 'PUT' && m) {
        const sealed = seal(key, version, Buffer.from(details.NEWPASSWORD), 'accounts.password');
        const { rows } = await client.query({
          name: 'change',
          text: `UPDATE accounts a SET password = $3, password_changed_at = now() FROM resources r
                 WHERE a.id = $2 AND r.id = a.resource_id AND r.id = $1 AND r.org_id = $4 RETURNING a.name, r.name AS rname`,
          values: [Number(m[1]), Number(m[2]), sealed, user.org_id],
        });
        await audit(client, user, 'Password Changed', Number(m[1]), rows[0]?.rname ?? '', Number(m[2]), rows[0]?.name ?? '');
      } else {
        const [resource] = (
          await client.query({
            name: 'resource',
            text: `INSERT INTO resources (org_id, owner_id, name, name_key, type) VALUES ($1, $2, $3, lower($3), $4) RETURNING id`,
            values: [user.org_id, user.id, details.RESOURCENAME, details.RESOURCETYPE],
          })
        ).rows;
        const [account] = (
          await client.query({
            name: 'account',
            // The product stores a compliance verdict with the password; written here too, so both insert the same columns.
            text: `INSERT INTO accounts (resource_id, name, name_key, password, compliance_policy, compliance_problems) VALUES ($1, $2, lower($2), $3, 'Strong', '') RETURNING id`,
            values: [resource.id, details.ACCOUNTNAME, seal(key, version, Buffer.from(details.PASSWORD), 'accounts.password')],
          })
        ).rows;
        await audit(client, user, 'Resource Added', resource.id, details.RESOURCENAME, account.id, details.ACCOUNTNAME);
      }
      await client.query('COMMIT');
      send(res, { operation: { result: { status: 'Success' } } });
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      send(res, { error: String(error) }, 500);
    } finally {
      client.release();
    }
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
  });
  process.once('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
}

function audit(client: import('pg').PoolClient, user: { id: number; org_id: number; username: string }, op: string, rid: number, rname: string, aid: number, aname: string) {
  return client.query({
    name: 'audit',
    text: `INSERT INTO audit (org_id, category, operation, outcome, actor_id, actor_name, resource_id, resource_name, account_id, account_name)
           VALUES ($1, 'Resource', $2, 'Success', $3, $4, $5, $6, $7, $8)`,
    values: [user.org_id, op, user.id, user.username, rid, rname, aid, aname],
  });
}

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks).toString('utf8'))).on('error', reject);
  });
}

function send(res: ServerResponse, payload: unknown, status = 200): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(payload));
}

main();
