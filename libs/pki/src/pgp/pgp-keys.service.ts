import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { Keyring } from '@app/crypto';
import { PkiSecretGate, pkiSecretTarget } from '@app/gate';
import { AppError, FileReply } from '@app/http';
import { PgpKeyDto } from './pgp-input';
import { parseOpenPgpUserId, userNameCandidates } from './pgp-user-name';

export const PRIVATE_KEY_CONTEXT = 'pgp_keys.private_key';

interface UserRow {
  id: number;
  org_id: number;
  username: string;
  email: string;
}

interface PgpKeyRow {
  id: number;
  public_key: string;
  fingerprint: string;
}

/** getPGPKey (spec op 40): one OpenPGP key pair per user, made on first use, private half sealed. */
@Injectable()
export class PgpKeysService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly keyring: Keyring,
    private readonly audit: AuditWriter,
    private readonly gate: PkiSecretGate,
  ) {}

  async exportKey(actor: Actor, dto: PgpKeyDto): Promise<FileReply> {
    const fileName = (user: UserRow, half: string) => `${user.username.replace(/[^A-Za-z0-9._-]+/g, '_')}_${half}.asc`;
    if ((dto.keyExportType ?? 'public') === 'public') {
      const user = await this.requireUser(actor, dto.User);
      const key = await this.ensureKey(actor, user);
      return new FileReply(Buffer.from(key.public_key, 'utf8'), fileName(user, 'public'), 'application/pgp-keys');
    }
    const user = await this.findUser(actor, dto.User);
    const asked = dto.User?.trim() ? userNameCandidates(dto.User)[0] : actor.username;
    const target = pkiSecretTarget('pgp-private-key', asked, user && { id: user.id, org_id: user.org_id, name: user.username }, {
      notFound: `User ${asked} does not exist`,
    });
    return this.gate.release(actor, target, async (m) => {
      // Made on first use, after the decision: a refused caller does not even cause a key to exist.
      const key = await this.ensureKey(actor, user!, m);
      const [sealed]: { private_key: Buffer }[] = await m.query(`SELECT private_key FROM pgp_keys WHERE id = $1 AND user_id = $2`, [key.id, user!.id]);
      return new FileReply(await this.keyring.open(sealed!.private_key, PRIVATE_KEY_CONTEXT), fileName(user!, 'private'), 'application/pgp-keys');
    });
  }

  private async requireUser(actor: Actor, text: string | null | undefined): Promise<UserRow> {
    const user = await this.findUser(actor, text);
    if (!user) throw AppError.notFound(`User ${userNameCandidates(text ?? '')[0]} does not exist`);
    return user;
  }

  /** The caller, or a user of the caller's organisation named by `text`. */
  private async findUser(actor: Actor, text: string | null | undefined): Promise<UserRow | undefined> {
    // JSON null passes the optional check as absent does (found by the fuzz suite).
    if (text === undefined || text === null || text.trim() === '') {
      const [self] = await this.dataSource.query(`SELECT id, org_id, username, email FROM users WHERE org_id = $1 AND id = $2`, [actor.orgId, actor.id]);
      return self;
    }
    for (const name of userNameCandidates(text)) {
      const [user] = await this.dataSource.query(`SELECT id, org_id, username, email FROM users WHERE org_id = $1 AND username_key = lower($2)`, [actor.orgId, name]);
      if (user) return user;
    }
    // The key pair's user id (name and mail), as KMP's sample sends it: both must match.
    const userId = parseOpenPgpUserId(text);
    if (!userId) return undefined;
    const [user] = await this.dataSource.query(
      `SELECT id, org_id, username, email FROM users WHERE org_id = $1 AND username_key = lower($2) AND lower(coalesce(email, '')) = lower($3)`,
      [actor.orgId, userId.name, userId.email],
    );
    return user;
  }

  /** Generated outside the transaction (slow); a concurrent first use keeps whichever landed first. */
  private async ensureKey(actor: Actor, user: UserRow, within?: EntityManager): Promise<PgpKeyRow> {
    const existing = await this.find(user.org_id, user.id, within);
    if (existing) return existing;
    // Loaded on first use: most starts (and most test files) never make a PGP key.
    const openpgp = await import('openpgp');
    const { publicKey, privateKey } = await openpgp.generateKey({
      userIDs: [{ name: user.username, ...(user.email ? { email: user.email } : {}) }],
      format: 'armored',
    });
    const fingerprint = (await openpgp.readKey({ armoredKey: publicKey })).getFingerprint().toUpperCase();
    const store = async (m: EntityManager) => {
      const inserted = await m.query(
        `INSERT INTO pgp_keys (user_id, public_key, private_key, fingerprint) VALUES ($1, $2, $3, $4) ON CONFLICT (user_id) DO NOTHING RETURNING id`,
        [user.id, publicKey, this.keyring.seal(privateKey, PRIVATE_KEY_CONTEXT), fingerprint],
      );
      if (!inserted.length) return;
      await this.audit.record(
        { category: 'Pki', operation: AuditOperation.PgpKeyCreated, actor, target: user.username, description: `PGP key pair created for user ${user.username} (fingerprint ${fingerprint})` },
        m,
      );
    };
    await (within ? store(within) : this.dataSource.transaction(store));
    return (await this.find(user.org_id, user.id, within))!;
  }

  private async find(orgId: number, userId: number, m: EntityManager = this.dataSource.manager): Promise<PgpKeyRow | undefined> {
    const [row] = await m.query(
      `SELECT k.id, k.public_key, k.fingerprint FROM pgp_keys k JOIN users u ON u.id = k.user_id WHERE u.org_id = $1 AND k.user_id = $2`,
      [orgId, userId],
    );
    return row;
  }
}
