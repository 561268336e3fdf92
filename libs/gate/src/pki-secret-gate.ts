import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Actor, AuditOperation, AuditWriter } from '@app/audit';
import { Permission, roleHas } from '@app/auth';
import { AppError } from '@app/http';

/** Every pki secret that leaves the server; each export path names one. */
export const PKI_SECRET_KINDS = {
  'ssh-private-key': { label: 'SSH key', operation: AuditOperation.SshKeyExported },
  'ssh-passphrase': { label: 'SSH key', operation: AuditOperation.SshKeyPassphraseRetrieved },
  'certificate-key': { label: 'certificate', operation: AuditOperation.CertificateExported },
  'certificate-keystore': { label: 'certificate', operation: AuditOperation.CertificateExported },
  'certificate-passphrase': { label: 'certificate', operation: AuditOperation.CertificatePassphraseRetrieved },
  'csr-private-key': { label: 'CSR', operation: AuditOperation.CsrExported },
  'csr-keystore': { label: 'CSR', operation: AuditOperation.CsrExported },
  'key-vault-key': { label: 'key vault key', operation: AuditOperation.KeyVaultKeyExported },
  'pgp-private-key': { label: 'PGP key of user', operation: AuditOperation.PgpKeyExported },
} as const;
export type PkiSecretKind = keyof typeof PKI_SECRET_KINDS;

/**
 * The object whose secret is asked for, as the caller's look-up found it. `orgId` and `id`
 * are null when the look-up (always scoped to the caller's organisation) found nothing.
 */
export interface PkiSecretTarget {
  kind: PkiSecretKind;
  name: string;
  orgId: number | null;
  id: number | null;
  /** For the audit row, e.g. the export format and serial; never the secret. */
  detail?: string;
  /** The refusal message when nothing was found (the path's own "does not exist" text). */
  notFound?: string;
}

/** The target of `release` from the caller's (organisation-scoped) look-up, found or not. */
export function pkiSecretTarget(
  kind: PkiSecretKind,
  askedName: string,
  row: { id: number; org_id: number; name?: string } | undefined,
  more: Pick<PkiSecretTarget, 'detail' | 'notFound'> = {},
): PkiSecretTarget {
  return { kind, name: row?.name ?? askedName, orgId: row?.org_id ?? null, id: row?.id ?? null, ...more };
}

/**
 * The one decision before a pki secret (SSH private key or passphrase, certificate key,
 * keystore or passphrase, a CSR's key or key store, key vault key, private PGP key) is opened for a caller: the object
 * belongs to the caller's organisation and the caller's role holds pki.manage (the
 * permission table in libs/auth). The decision is audited before the secret is produced:
 *
 * - a refusal on its own connection, so that it outlives the rollback of the request;
 * - a grant in the transaction in which `produce` opens the secret (the gate's own, or the
 *   caller's `manager`), so that a failed export (no key held...) leaves no "Released" row.
 *
 * `produce` is the only place the secret is opened. Callers look the object up before
 * calling, outside any transaction of theirs: a refused request then never holds two
 * connections at once.
 */
@Injectable()
export class PkiSecretGate {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditWriter,
  ) {}

  async release<T>(actor: Actor, target: PkiSecretTarget, produce: (m: EntityManager) => Promise<T>, manager?: EntityManager): Promise<T> {
    const refusal = refusalOf(actor, target);
    const { label, operation } = PKI_SECRET_KINDS[target.kind];
    const what = `${target.kind} of ${label} ${target.name}${target.detail ? ` (${target.detail})` : ''}`;
    if (refusal) {
      await this.audit.record(
        { category: 'Pki', operation, outcome: 'Failed', actor, target: target.name, description: `Refused: ${what}: ${refusal.why}` },
        this.dataSource.manager,
      );
      throw refusal.error;
    }
    const granted = async (m: EntityManager) => {
      await this.audit.record({ category: 'Pki', operation, actor, target: target.name, description: `Released: ${what}` }, m);
      return produce(m);
    };
    return manager ? granted(manager) : this.dataSource.transaction(granted);
  }

  /**
   * The use decision on an SSH resource's stored login credential (ssh_resources.login_user
   * and login_password, the pki side's administrator credential): the same conditions as a
   * release (organisation and pki.manage). `Password Used`, naming the login and what it is
   * for, is committed on its own connection before `open` gives the password to the caller,
   * which connects only after; a refusal is audited as `Password Use Denied`. The host is the
   * resource's name, which no operation changes (a new name is a new resource).
   */
  async useLogin<T>(actor: Actor, target: { id: number | null; orgId: number | null; name: string; login: string }, purpose: string, open: () => Promise<T>): Promise<T> {
    const refusal = refusalOf(actor, { kind: 'ssh-passphrase', name: target.name, orgId: target.orgId, id: target.id, notFound: `SSH resource ${target.name} does not exist` });
    const description = `SSH login as ${target.login} to ${target.name}: ${purpose}`;
    const base = { category: 'Pki' as const, actor, target: target.name };
    if (refusal) {
      await this.audit.record({ ...base, operation: AuditOperation.PasswordUseDenied, outcome: 'Failed', description: `Refused: ${description}: ${refusal.why}` }, this.dataSource.manager);
      throw refusal.error;
    }
    await this.audit.record({ ...base, operation: AuditOperation.PasswordUsed, description }, this.dataSource.manager);
    return open();
  }
}

function refusalOf(actor: Actor, target: PkiSecretTarget): { why: string; error: AppError } | undefined {
  // The role first: a caller who may not export learns nothing about what exists.
  if (!roleHas(actor.role, Permission.PkiManage)) {
    return {
      why: `role ${actor.role} does not hold ${Permission.PkiManage}`,
      error: AppError.forbidden(`Your role (${actor.role}) does not allow this operation`),
    };
  }
  if (target.orgId === null || target.id === null || target.orgId !== actor.orgId) {
    const message = target.notFound ?? `${capitalise(PKI_SECRET_KINDS[target.kind].label)} ${target.name} does not exist`;
    return { why: 'not found in the caller\'s organisation', error: AppError.notFound(message) };
  }
  // A private PGP key is a person's signature and decryption key: theirs, or a super administrator's to export (issue 35).
  if (target.kind === 'pgp-private-key' && target.id !== actor.id && !actor.isSuperAdmin) {
    return {
      why: 'the private half of another user\'s PGP key',
      error: AppError.forbidden(`Only ${target.name} or a super administrator may export the private half of ${target.name}'s PGP key`),
    };
  }
  return undefined;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
