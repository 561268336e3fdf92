import { AuditOperation } from '@app/audit';
import { AccessLevel } from './visibility';

/**
 * What a caller wants to do with a stored secret. Every path that releases a secret, uses
 * one on the caller's behalf or replaces one names its use, and the gate decides from it.
 */
export type SecretUse = 'read' | 'download' | 'change' | 'use' | 'configure' | 'redirect' | 'reconcile' | 'export' | 'assess';

/** What a use of an account's secret needs, and how its decision is audited. */
export interface AccountUseRule {
  /** The share level the caller must hold. */
  need: AccessLevel;
  /** 'resource': the level must be held on the resource itself (acting on every account of it). */
  scope: 'account' | 'resource';
  /** What the level is needed for, in a refusal's message. */
  purpose: string;
  /** Audit operation of a grant; null when the use writes its own row in the same transaction. */
  granted: string | null;
  refused: string;
  /**
   * A read of a two-account pair's head answers the pair's current member (its password,
   * and its name as member_name): see CONFIGURE DUAL ACCOUNT.
   */
  answersCurrentMember?: boolean;
}

export type AccountUse = Exclude<SecretUse, 'export'>;

/**
 * The table behind every decision on an account's secret. Reads and downloads need
 * visibility; anything that replaces the secret or logs in with it on the caller's behalf
 * needs modify; pointing the stored credentials at another host needs full access to the
 * resource: by logging in there at once ('configure'), or by changing an attribute that
 * decides where they go later ('redirect': DNS name, the name when there is none, port,
 * type; audited by the change's own row). Access control, the help-desk restriction and
 * reason/ticket apply to all. Assessing a password against a policy (after a policy
 * switch) tells its length and character classes, so it is decided as a read is, under its
 * own audit names.
 */
export const ACCOUNT_USE_RULES: Record<AccountUse, AccountUseRule> = {
  read: {
    need: 'view',
    scope: 'account',
    purpose: 'to read its password',
    granted: AuditOperation.PasswordRetrieved,
    refused: AuditOperation.PasswordRetrievalDenied,
    answersCurrentMember: true,
  },
  download: { need: 'view', scope: 'account', purpose: 'to download its files', granted: AuditOperation.FileDownloaded, refused: AuditOperation.FileDownloadDenied },
  change: { need: 'modify', scope: 'account', purpose: 'to change its password', granted: null, refused: AuditOperation.PasswordChangeDenied },
  use: { need: 'modify', scope: 'account', purpose: 'to log in with its password', granted: AuditOperation.PasswordUsed, refused: AuditOperation.PasswordUseDenied },
  assess: {
    need: 'view',
    scope: 'account',
    purpose: 'to check its password against a policy',
    granted: AuditOperation.PasswordComplianceChecked,
    refused: AuditOperation.PasswordComplianceCheckDenied,
  },
  configure: { need: 'fullaccess', scope: 'resource', purpose: 'to point its stored credentials at another host', granted: AuditOperation.PasswordUsed, refused: AuditOperation.PasswordUseDenied },
  reconcile: { need: 'fullaccess', scope: 'resource', purpose: 'to reconcile its password with the target', granted: null, refused: AuditOperation.PasswordChangeDenied },
  redirect: { need: 'fullaccess', scope: 'resource', purpose: 'to change where its stored credentials are sent', granted: null, refused: AuditOperation.PasswordUseDenied },
};
