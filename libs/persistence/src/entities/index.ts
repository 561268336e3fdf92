import { AccessControl } from './access-control.entity';
import { AcmeAccount, AcmeAuthorization, AcmeChallenge, AcmeEabKey, AcmeNonce, AcmeOrder, CaAllowedNames } from './acme.entity';
import { Account } from './account.entity';
import { ApiToken } from './api-token.entity';
import { AuditCheckpoint, AuditCount, AuditEntry, AuditSeal } from './audit-entry.entity';
import { CertificateAuthority } from './certificate-authority.entity';
import { CertificateEndpoint } from './certificate-endpoint.entity';
import { Certificate } from './certificate.entity';
import { Csr } from './csr.entity';
import { CustomField } from './custom-field.entity';
import { DataKey } from './data-key.entity';
import { DeploymentTarget } from './deployment-target.entity';
import { Job } from './job.entity';
import { KeyVaultKey } from './key-vault-key.entity';
import { Organization } from './organization.entity';
import { PasswordHistory } from './password-history.entity';
import { PasswordPolicyRow } from './password-policy.entity';
import { PasswordRequest } from './password-request.entity';
import { PgpKey } from './pgp-key.entity';
import { ResourceGroup, ResourceGroupMember } from './resource-group.entity';
import { Resource } from './resource.entity';
import { Setting } from './setting.entity';
import { Share } from './share.entity';
import { SshKey } from './ssh-key.entity';
import { SshHostKey, SshKeyAssociation, SshResource, SshUser } from './ssh-resource.entity';
import { StoredFile } from './stored-file.entity';
import { UnmanagedCertImport } from './unmanaged-cert-import.entity';
import { CertificateExpiryNotice } from './certificate-expiry-notice.entity';
import { User } from './user.entity';
import { UserGroup, UserGroupMember } from './user-group.entity';

export * from './access-control.entity';
export * from './acme.entity';
export * from './account.entity';
export * from './api-token.entity';
export * from './audit-entry.entity';
export * from './certificate-authority.entity';
export * from './certificate-expiry-notice.entity';
export * from './certificate-endpoint.entity';
export * from './certificate.entity';
export * from './csr.entity';
export * from './custom-field.entity';
export * from './data-key.entity';
export * from './deployment-target.entity';
export * from './job.entity';
export * from './key-vault-key.entity';
export * from './organization.entity';
export * from './password-history.entity';
export * from './password-policy.entity';
export * from './password-request.entity';
export * from './pgp-key.entity';
export * from './resource-group.entity';
export * from './resource.entity';
export * from './setting.entity';
export * from './share.entity';
export * from './ssh-key.entity';
export * from './ssh-resource.entity';
export * from './stored-file.entity';
export * from './unmanaged-cert-import.entity';
export * from './user.entity';
export * from './user-group.entity';

export const ENTITIES = [
  Organization, User, ApiToken, UserGroup, UserGroupMember, PasswordPolicyRow,
  Resource, Account, PasswordHistory, CustomField, StoredFile, Share,
  ResourceGroup, ResourceGroupMember, AccessControl, PasswordRequest, Setting,
  AuditEntry, AuditCheckpoint, AuditSeal, AuditCount, DataKey, SshKey, SshResource, SshUser, SshKeyAssociation, SshHostKey,
  KeyVaultKey, CertificateAuthority, Certificate, CertificateEndpoint, Csr,
  DeploymentTarget, PgpKey, Job, UnmanagedCertImport, CertificateExpiryNotice,
  CaAllowedNames, AcmeEabKey, AcmeNonce, AcmeAccount, AcmeOrder, AcmeAuthorization, AcmeChallenge,
];
