/** What a reader filters on: the vault's AUDITTYPE (Resource, User) plus the pki service. */
export type AuditCategory = 'Resource' | 'User' | 'Pki';

export const AuditOperation = {
  ResourceCreated: 'Resource Added',
  ResourceModified: 'Resource Modified',
  ResourceDeleted: 'Resource Deleted',
  ResourceShared: 'Resource Shared',
  AccountAdded: 'Account Added',
  AccountModified: 'Account Modified',
  AccountDeleted: 'Account Deleted',
  AccountShared: 'Account Shared',
  PasswordRetrieved: 'Password Retrieved',
  PasswordRetrievalDenied: 'Password Retrieval Denied',
  PasswordChanged: 'Password Changed',
  PasswordChangeFailed: 'Password Change Failed',
  PasswordGenerated: 'Password Generated',
  FileDownloaded: 'File Downloaded',
  FileDownloadDenied: 'File Download Denied',
  PasswordChangeDenied: 'Password Change Denied',
  PasswordUsed: 'Password Used',
  PasswordUseDenied: 'Password Use Denied',
  PasswordComplianceChecked: 'Password Compliance Checked',
  PasswordComplianceCheckDenied: 'Password Compliance Check Denied',
  PasswordRequested: 'Password Requested',
  RequestApproved: 'Password Request Approved',
  RequestRejected: 'Password Request Rejected',
  RequestExpired: 'Password Request Expired',
  PasswordCheckedOut: 'Password Checked Out',
  PasswordCheckedIn: 'Password Checked In',
  AccessControlConfigured: 'Access Control Configured',
  PolicyCreated: 'Password Policy Added',
  SettingChanged: 'Setting Changed',
  UserCreated: 'User Added',
  UserDeleted: 'User Deleted',
  UserLocked: 'User Locked',
  UserUnlocked: 'User Unlocked',
  UserAddedToGroup: 'User Added To Group',
  UserRemovedFromGroup: 'User Removed From Group',
  UserModified: 'User Modified',
  UserGroupCreated: 'User Group Added',
  UserGroupModified: 'User Group Modified',
  DirectoryConfigured: 'Directory Configured',
  DirectorySynchronised: 'Directory Synchronised',
  OrganizationAccessGranted: 'Organization Access Granted',
  OrganizationAccessRevoked: 'Organization Access Revoked',
  ResourceGroupCreated: 'Resource Group Added',
  ResourceGroupModified: 'Resource Group Modified',
  ResourceGroupShared: 'Resource Group Shared',
  ResourceGroupDeleted: 'Resource Group Deleted',
  AuthenticationFailed: 'Authentication Failed',
  ApiTokenCreated: 'API Token Created',
  ApiTokenRotated: 'API Token Rotated',
  ApiTokenRevoked: 'API Token Revoked',
  InitialTokenFileRemoved: 'Initial Token File Removed',
  BackupCreated: 'Backup Created',
  BackupFailed: 'Backup Failed',
  BackupRestored: 'Backup Restored',
  ConsoleSignIn: 'Console Sign In',
  ConsoleSignOut: 'Console Sign Out',
  TotpEnrolled: 'TOTP Enrolled',
  UserPasswordChanged: 'User Password Changed',
  MasterKeyRotated: 'Master Key Rotated',
  SshKeyCreated: 'SSH Key Created',
  SshKeyImported: 'SSH Key Imported',
  SshKeyExported: 'SSH Key Exported',
  SshKeyPassphraseRetrieved: 'SSH Key Passphrase Retrieved',
  SshKeyDeleted: 'SSH Key Deleted',
  SshKeyAssociated: 'SSH Key Associated',
  SshKeyDissociated: 'SSH Key Dissociated',
  SshCredentialsApplied: 'SSH Credentials Applied',
  SshUsersEnumerated: 'SSH Users Enumerated',
  SshHostsDiscovered: 'SSH Hosts Discovered',
  SshHostKeyRecorded: 'SSH Host Key Recorded',
  SshHostKeyRefused: 'SSH Host Key Refused',
  SshHostKeyAccepted: 'SSH Host Key Accepted',
  RemoteResetConfigured: 'Remote Password Reset Configured',
  PasswordRotationConfigured: 'Password Rotation Configured',
  PasswordRotated: 'Password Rotated',
  PasswordRotationFailed: 'Password Rotation Failed',
  DualAccountConfigured: 'Dual Account Configured',
  PasswordVerified: 'Password Verified',
  DestinationApproved: 'Destination Approved',
  DestinationChanged: 'Destination Changed',
  PasswordOutOfSync: 'Password Out Of Sync',
  RemoteChangeSettled: 'Remote Change Settled',
  CertificateAuthorityCreated: 'Certificate Authority Created',
  CertificateCreated: 'Certificate Created',
  CertificateAdded: 'Certificate Added',
  CertificateSigned: 'Certificate Signed',
  CertificateExported: 'Certificate Exported',
  CertificatePassphraseRetrieved: 'Certificate Passphrase Retrieved',
  CertificateDeleted: 'Certificate Deleted',
  CertificateRevoked: 'Certificate Revoked',
  CertificateDeployed: 'Certificate Deployed',
  CertificateNotificationEmailChanged: 'Certificate Notification Email Changed',
  CertificateDetailsUpdated: 'Certificate Details Updated',
  SslAdditionalFieldDefined: 'SSL Additional Field Defined',
  SslAdditionalFieldRemoved: 'SSL Additional Field Removed',
  CertificateExpiryNotified: 'Certificate Expiry Notification',
  OcspResponderIssued: 'OCSP Responder Certificate Issued',
  DeploymentTargetSaved: 'Deployment Target Saved',
  CsrCreated: 'CSR Created',
  CsrImported: 'CSR Imported',
  CsrExported: 'CSR Exported',
  SslCertificatesDiscovered: 'SSL Certificates Discovered',
  KeyVaultKeyAdded: 'Key Vault Key Added',
  KeyVaultKeyUpdated: 'Key Vault Key Updated',
  KeyVaultKeyExported: 'Key Vault Key Exported',
  KeyVaultKeyDeleted: 'Key Vault Key Deleted',
  PgpKeyCreated: 'PGP Key Created',
  PgpKeyExported: 'PGP Key Exported',
  UnmanagedCertificatesImported: 'Unmanaged Certificates Imported',
  AcmeEabKeyCreated: 'ACME EAB Key Created',
  AcmeAllowedDomainsChanged: 'ACME Allowed Domains Changed',
  AcmeAccountCreated: 'ACME Account Created',
  AcmeAccountDeactivated: 'ACME Account Deactivated',
  AcmeAccountKeyChanged: 'ACME Account Key Changed',
  AcmeChallengeValidated: 'ACME Challenge Validated',
} as const;
export type AuditOperationName = (typeof AuditOperation)[keyof typeof AuditOperation] | string;

/** The audit actor name of the server's own operations (actor_id NULL). */
export const SYSTEM_ACTOR_NAME = 'System';

/** Who acted, from where. */
export interface Actor {
  id: number;
  orgId: number;
  orgName: string;
  username: string;
  role: string;
  isSuperAdmin: boolean;
  ip: string;
  client: string;
  /** Set while acting in another organisation (header orgName): the caller's own. */
  homeOrgId?: number;
}

export interface AuditEvent {
  category: AuditCategory;
  operation: AuditOperationName;
  outcome?: 'Success' | 'Failed';
  actor?: Pick<Actor, 'id' | 'orgId' | 'username' | 'ip' | 'client'> | null;
  orgId?: number | null;
  resourceId?: number | null;
  resourceName?: string;
  accountId?: number | null;
  accountName?: string;
  target?: string;
  reason?: string;
  ticketId?: string;
  requestId?: number | null;
  description?: string;
}
