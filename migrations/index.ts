import { Initial1795241742557 } from './1795241742557-Initial';
import { PasswordWorkflow1795242200000 } from './1795242200000-PasswordWorkflow';
import { AuditChainAndGroups1795242213434 } from './1795242213434-AuditChainAndGroups';
import { UnmanagedCertImports1795242532810 } from './1795242532810-UnmanagedCertImports';
import { CertificateAuthorityCrl1795242874224 } from './1795242874224-CertificateAuthorityCrl';
import { OcspAndExpiryNotices1795243100000 } from './1795243100000-OcspAndExpiryNotices';
import { AuthoritiesPerOrganisation1795243600000 } from './1795243600000-AuthoritiesPerOrganisation';
import { AcmeServer1795300000000 } from './1795300000000-AcmeServer';
import { GroupFunctionsPlpgsql1795300100000 } from './1795300100000-GroupFunctionsPlpgsql';
import { SshHostKeys1795300500000 } from './1795300500000-SshHostKeys';
import { AuditSealsAndCounts1795310000000 } from './1795310000000-AuditSealsAndCounts';
import { ResourceGroupMembership1795320000000 } from './1795320000000-ResourceGroupMembership';
import { PasswordHistoryRecent1795330000000 } from './1795330000000-PasswordHistoryRecent';
import { AuditIdDefaultExpression1795340000000 } from './1795340000000-AuditIdDefaultExpression';
import { AuditWithoutCreatedAtIndex1795350000000 } from './1795350000000-AuditWithoutCreatedAtIndex';
import { CallerGateColumns1795360000000 } from './1795360000000-CallerGateColumns';
import { AccessControlRows1795370000000 } from './1795370000000-AccessControlRows';
import { NoHelpdeskGroupIds1795380000000 } from './1795380000000-NoHelpdeskGroupIds';
import { PasswordFingerprints1795390000000 } from './1795390000000-PasswordFingerprints';
import { RemoteConnectors1795400000000 } from './1795400000000-RemoteConnectors';
import { PasswordComplianceVerdict1795404000000 } from './1795404000000-PasswordComplianceVerdict';
import { PasswordRotation1795450000000 } from './1795450000000-PasswordRotation';
import { CaAllowedNames1795460240000 } from './1795460240000-CaAllowedNames';
import { OrganizationAccess1795460290000 } from './1795460290000-OrganizationAccess';
import { FailedAuthSources1795461240000 } from './1795461240000-FailedAuthSources';
import { DestinationBinding1795470000000 } from './1795470000000-DestinationBinding';

// Every migration, in order. New migrations are appended here.
export const MIGRATIONS: Function[] = [Initial1795241742557, PasswordWorkflow1795242200000, AuditChainAndGroups1795242213434, UnmanagedCertImports1795242532810, CertificateAuthorityCrl1795242874224, OcspAndExpiryNotices1795243100000, AuthoritiesPerOrganisation1795243600000, AcmeServer1795300000000, GroupFunctionsPlpgsql1795300100000, SshHostKeys1795300500000, AuditSealsAndCounts1795310000000, ResourceGroupMembership1795320000000, PasswordHistoryRecent1795330000000, AuditIdDefaultExpression1795340000000, AuditWithoutCreatedAtIndex1795350000000, CallerGateColumns1795360000000, AccessControlRows1795370000000, NoHelpdeskGroupIds1795380000000, PasswordFingerprints1795390000000, RemoteConnectors1795400000000, PasswordComplianceVerdict1795404000000, PasswordRotation1795450000000, CaAllowedNames1795460240000, OrganizationAccess1795460290000, FailedAuthSources1795461240000, DestinationBinding1795470000000];
