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
 * keystore or passphrase, key vault key, private PGP key) is opened for a caller: the object
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
  return undefined;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
