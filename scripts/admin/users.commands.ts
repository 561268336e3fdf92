import { randomBytes } from 'node:crypto';
import { hash } from 'bcrypt';
import { AuditOperation, AuditWriter } from '@app/audit';
import { ROLES } from '@app/persistence';
import { createApiUser, createApiUserIn, ensureFirstAdmin, retireInitialTokenFile, revokeApiTokens, RevokedTokens, rotateApiToken } from '@app/server';
import { optional, required } from './args';
import { AdminCommand } from './command';
import { orgId } from './context';

export const createApiUserCommand: AdminCommand = {
  name: 'create-api-user',
  usage: 'create-api-user --username U --role R [--hostname H] [--org O] [--superadmin]',
  summary: 'Create an API user; prints its token as the last line',
  async run(ctx, args) {
    const username = required(args, 'username');
    const role = ROLES.find((r) => r.toLowerCase() === required(args, 'role').toLowerCase());
    if (!role) throw new Error(`--role must be one of: ${ROLES.join(', ')}`);
    await ensureFirstAdmin(ctx.dataSource, ctx.config.dataDir);
    const org = await orgId(ctx.dataSource, optional(args, 'org'));
    const [existing] = await ctx.dataSource.query('SELECT id FROM users WHERE org_id = $1 AND username_key = lower($2)', [org, username]);
    if (existing) throw new Error(`A user named ${username} already exists`);
    const { userId, token } = await createApiUser(
      ctx.dataSource,
      { orgId: org, username, role, superAdmin: args.superadmin === true, allowedHosts: optional(args, 'hostname') ?? '' },
      'admin CLI',
    );
    await retireInitialToken(ctx);
    console.log(`Created API user ${username} (id ${userId}, ${role}). Token:`);
    console.log(token);
  },
};

export const listUsersCommand: AdminCommand = {
  name: 'list-users',
  usage: 'list-users [--org O]',
  summary: 'List users with role, state and host binding',
  async run(ctx, args) {
    // Every organisation's users, or one's: an unknown name is an error, not an empty table.
    const name = optional(args, 'org');
    const org = name === undefined ? null : await orgId(ctx.dataSource, name);
    const rows = await ctx.dataSource.query(
      `SELECT u.id, u.username, u.role, u.is_super_admin, u.is_api_user, u.locked, u.expires_on, u.allowed_hosts, o.name AS org
       FROM users u JOIN organizations o ON o.id = u.org_id
       WHERE ($1::int IS NULL OR o.id = $1) ORDER BY o.name, u.username`,
      [org],
    );
    console.log(['ID', 'USERNAME', 'ROLE', 'SUPERADMIN', 'API', 'LOCKED', 'EXPIRES', 'HOSTS', 'ORG'].join('\t'));
    for (const r of rows) {
      console.log([r.id, r.username, r.role, r.is_super_admin, r.is_api_user, r.locked, r.expires_on ?? 'never', r.allowed_hosts || '-', r.org].join('\t'));
    }
  },
};

export const createOrgCommand: AdminCommand = {
  name: 'create-org',
  usage: 'create-org --name N [--admin U]',
  summary: 'Create an organisation with a super administrator (default name admin); prints its token as the last line',
  async run(ctx, args) {
    const name = required(args, 'name');
    const adminName = optional(args, 'admin') ?? 'admin';
    await ensureFirstAdmin(ctx.dataSource, ctx.config.dataDir);
    const created = await ctx.dataSource.transaction(async (m) => {
      const [existing] = await m.query('SELECT id FROM organizations WHERE lower(name) = lower($1)', [name]);
      if (existing) throw new Error(`An organisation named ${name} already exists`);
      const [org] = await m.query('INSERT INTO organizations (name) VALUES ($1) RETURNING id', [name]);
      return { orgId: org.id as number, ...(await createApiUserIn(m, { orgId: org.id, username: adminName, role: 'Administrator', superAdmin: true }, 'admin CLI')) };
    });
    console.log(`Created organisation ${name} (id ${created.orgId}) with super administrator ${adminName}. Token:`);
    console.log(created.token);
  },
};

function lockCommand(locked: boolean): AdminCommand {
  const verb = locked ? 'lock' : 'unlock';
  return {
    name: `${verb}-user`,
    usage: `${verb}-user --username U [--org O]`,
    summary: locked ? 'Lock a user: its token is refused at once on every instance' : 'Unlock a locked user',
    async run(ctx, args) {
      const username = required(args, 'username');
      const org = await orgId(ctx.dataSource, optional(args, 'org'));
      await ctx.dataSource.transaction(async (m) => {
        // An UPDATE answers [rows, count] through TypeORM: the rows are the first element.
        const [rows] = (await m.query('UPDATE users SET locked = $3, updated_at = now() WHERE org_id = $1 AND username_key = lower($2) RETURNING username', [
          org,
          username,
          locked,
        ])) as [{ username: string }[], number];
        if (rows.length === 0) throw new Error(`No user named ${username}`);
        await new AuditWriter(ctx.dataSource).record(
          { category: 'User', operation: locked ? AuditOperation.UserLocked : AuditOperation.UserUnlocked, orgId: org, target: rows[0].username, description: 'admin CLI' },
          m,
        );
      });
      console.log(`User ${username} ${verb}ed.`);
    },
  };
}

export const lockUserCommand = lockCommand(true);
export const unlockUserCommand = lockCommand(false);

/** After any change that may have made the first token file redundant: removed (audited) if so. */
async function retireInitialToken(ctx: Parameters<AdminCommand['run']>[0], revoked?: RevokedTokens): Promise<void> {
  const why = await retireInitialTokenFile(ctx.dataSource, ctx.config.dataDir, { revoked });
  if (why) console.log(`Removed ${ctx.config.dataDir}/initial-admin-token: ${why}.`);
}

export const rotateTokenCommand: AdminCommand = {
  name: 'rotate-token',
  usage: 'rotate-token --username U [--org O]',
  summary: 'Give a user a new API token; every earlier one stops working at once (audited); prints the token as the last line',
  async run(ctx, args) {
    const org = await orgId(ctx.dataSource, optional(args, 'org'));
    const { username, token, revoked } = await rotateApiToken(ctx.dataSource, org, required(args, 'username'), 'admin CLI');
    await retireInitialToken(ctx, revoked);
    console.log(`New token of ${username} (earlier tokens revoked):`);
    console.log(token);
  },
};

export const revokeTokenCommand: AdminCommand = {
  name: 'revoke-token',
  usage: 'revoke-token --username U [--org O]',
  summary: "Revoke every token of an API user at once (audited); rotate-token gives it a new one",
  async run(ctx, args) {
    const org = await orgId(ctx.dataSource, optional(args, 'org'));
    const { username, count, revoked } = await revokeApiTokens(ctx.dataSource, org, required(args, 'username'), 'admin CLI');
    await retireInitialToken(ctx, revoked);
    console.log(`Revoked ${count} token(s) of ${username}.`);
  },
};

export const removeInitialTokenCommand: AdminCommand = {
  name: 'remove-initial-token',
  usage: 'remove-initial-token',
  summary: 'Remove DATA_DIR/initial-admin-token now (audited); the token itself keeps working until rotated or revoked',
  async run(ctx) {
    const why = await retireInitialTokenFile(ctx.dataSource, ctx.config.dataDir, { force: true });
    console.log(why ? `Removed ${ctx.config.dataDir}/initial-admin-token.` : `There is no ${ctx.config.dataDir}/initial-admin-token.`);
  },
};

export const setLoginPasswordCommand: AdminCommand = {
  name: 'set-login-password',
  usage: 'set-login-password --username U [--org O]',
  summary: 'Give a user (not an API user, but for admin) a new console login password, printed as the last line (audited); they change it on the console',
  async run(ctx, args) {
    const org = await orgId(ctx.dataSource, optional(args, 'org'));
    const username = required(args, 'username');
    const password = randomBytes(15).toString('base64url');
    await ctx.dataSource.transaction(async (m) => {
      const [user] = await m.query('SELECT id, username, is_api_user, password_hash IS NOT NULL AS has_password FROM users WHERE org_id = $1 AND username_key = lower($2) FOR UPDATE', [org, username]);
      if (!user) throw new Error(`No user named ${username}`);
      // A program's identity does not gain a console login here; the first start's admin, who has both, may be reset.
      if (user.is_api_user && !user.has_password) throw new Error(`${user.username} is an API user: API users sign in with their token, not on the console`);
      await m.query('UPDATE users SET password_hash = $2, updated_at = now() WHERE id = $1', [user.id, await hash(password, 12)]);
      await new AuditWriter(ctx.dataSource).record(
        { category: 'User', operation: AuditOperation.UserPasswordChanged, orgId: org, target: user.username, description: 'login password set by the admin CLI' },
        m,
      );
    });
    console.log(`New login password of ${username}:`);
    console.log(password);
  },
};

export const createUserCommand: AdminCommand = {
  name: 'create-user',
  usage: 'create-user --username U --role R [--email E] [--org O] [--superadmin]',
  summary: 'Create a person (not an API user) who signs in to the web console; prints a login password as the last line (audited)',
  async run(ctx, args) {
    const username = required(args, 'username');
    const role = ROLES.find((r) => r.toLowerCase() === required(args, 'role').toLowerCase());
    if (!role) throw new Error(`--role must be one of: ${ROLES.join(', ')}`);
    const superAdmin = args.superadmin === true;
    if (superAdmin && role !== 'Administrator') throw new Error('A super administrator must have the Administrator role');
    await ensureFirstAdmin(ctx.dataSource, ctx.config.dataDir);
    const org = await orgId(ctx.dataSource, optional(args, 'org'));
    const password = randomBytes(15).toString('base64url');
    const passwordHash = await hash(password, 12);
    await ctx.dataSource.transaction(async (m) => {
      const [existing] = await m.query('SELECT id FROM users WHERE org_id = $1 AND username_key = lower($2)', [org, username]);
      if (existing) throw new Error(`A user named ${username} already exists`);
      await m.query(
        `INSERT INTO users (org_id, username, username_key, full_name, email, role, is_super_admin, is_api_user, password_hash)
         VALUES ($1, $2, lower($2), $2, $3, $4, $5, false, $6)`,
        [org, username, optional(args, 'email') ?? '', role, superAdmin, passwordHash],
      );
      await new AuditWriter(ctx.dataSource).record(
        { category: 'User', operation: AuditOperation.UserCreated, orgId: org, target: username, description: `user ${username} (${role}${superAdmin ? ', super administrator' : ''}) created by admin CLI` },
        m,
      );
    });
    console.log(`Created ${username} (${role}${superAdmin ? ', super administrator' : ''}). Console login password (change it on the console):`);
    console.log(password);
  },
};
