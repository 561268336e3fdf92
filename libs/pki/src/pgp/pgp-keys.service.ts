import { Injectable } from '@nestjs/common';
import * as openpgp from 'openpgp';
import { DataSource } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { Permission, roleHas } from '@app/auth';
import { Keyring } from '@app/crypto';
import { AppError, FileReply } from '@app/http';
import { PgpKeyDto } from './pgp-input';
import { userNameCandidates } from './pgp-user-name';

export const PRIVATE_KEY_CONTEXT = 'pgp_keys.private_key';

interface UserRow {
  id: number;
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
  ) {}

  async exportKey(actor: Actor, dto: PgpKeyDto): Promise<FileReply> {
    const type = dto.keyExportType ?? 'public';
    if (type === 'private' && !roleHas(actor.role, Permission.PkiManage)) {
      throw AppError.forbidden('You are not allowed to export private PGP keys');
    }
    const user = await this.resolveUser(actor, dto.User);
    const key = await this.ensureKey(actor, user);
    const fileBase = user.username.replace(/[^A-Za-z0-9._-]+/g, '_');
    if (type === 'public') return new FileReply(Buffer.from(key.public_key, 'utf8'), `${fileBase}_public.asc`, 'application/pgp-keys');

    const sealed: { private_key: Buffer }[] = await this.dataSource.query(`SELECT private_key FROM pgp_keys WHERE id = $1`, [key.id]);
    const armored = await this.keyring.open(sealed[0]!.private_key, PRIVATE_KEY_CONTEXT);
    await this.audit.record({
      category: 'Pki',
      operation: AuditOperation.PgpKeyExported,
      actor,
      target: user.username,
      description: `Private PGP key of user ${user.username} exported (fingerprint ${key.fingerprint})`,
    });
    return new FileReply(armored, `${fileBase}_private.asc`, 'application/pgp-keys');
  }

  private async resolveUser(actor: Actor, text: string | null | undefined): Promise<UserRow> {
    // JSON null passes the optional check as absent does (found by the fuzz suite).
    if (text === undefined || text === null || text.trim() === '') return { id: actor.id, username: actor.username, email: await this.emailOf(actor.id) };
    for (const name of userNameCandidates(text)) {
      const [user] = await this.dataSource.query(`SELECT id, username, email FROM users WHERE org_id = $1 AND username_key = lower($2)`, [actor.orgId, name]);
      if (user) return user;
    }
    throw AppError.notFound(`User ${userNameCandidates(text)[0]} does not exist`);
  }

  private async emailOf(userId: number): Promise<string> {
    const [row] = await this.dataSource.query(`SELECT email FROM users WHERE id = $1`, [userId]);
    return row?.email ?? '';
  }

  /** Generated outside the transaction (slow); a concurrent first use keeps whichever landed first. */
  private async ensureKey(actor: Actor, user: UserRow): Promise<PgpKeyRow> {
    const existing = await this.find(user.id);
    if (existing) return existing;
    const { publicKey, privateKey } = await openpgp.generateKey({
      userIDs: [{ name: user.username, ...(user.email ? { email: user.email } : {}) }],
      format: 'armored',
    });
    const fingerprint = (await openpgp.readKey({ armoredKey: publicKey })).getFingerprint().toUpperCase();
    await this.dataSource.transaction(async (m) => {
      const inserted = await m.query(
        `INSERT INTO pgp_keys (user_id, public_key, private_key, fingerprint) VALUES ($1, $2, $3, $4) ON CONFLICT (user_id) DO NOTHING RETURNING id`,
        [user.id, publicKey, this.keyring.seal(privateKey, PRIVATE_KEY_CONTEXT), fingerprint],
      );
      if (!inserted.length) return;
      await this.audit.record(
        { category: 'Pki', operation: AuditOperation.PgpKeyCreated, actor, target: user.username, description: `PGP key pair created for user ${user.username} (fingerprint ${fingerprint})` },
        m,
      );
    });
    return (await this.find(user.id))!;
  }

  private async find(userId: number): Promise<PgpKeyRow | undefined> {
    const [row] = await this.dataSource.query(`SELECT id, public_key, fingerprint FROM pgp_keys WHERE user_id = $1`, [userId]);
    return row;
  }
}
