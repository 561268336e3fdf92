import { listReply, reply, Reply } from '@app/http';
import { SavedCertificate } from '../cert-store';
import { CreatedAuthority } from './certificate-authorities.service';
import { passphraseMessage } from './certificate-export.service';
import { CertificateSummary } from './certificates.service';
import { SavedCsr } from './csr.service';
import { DeployStatus } from './deployment.service';

/** Messages and reply shapes shared by the pki service and the vault's prefix B. */
export const certReplies = {
  list: (entries: unknown[]): Reply => listReply('SSL certificates fetched successfully', entries),
  expiry: (entries: unknown[]): Reply => listReply('SSL certificates expiry dates fetched successfully', entries),
  details: (details: unknown): Reply => reply('Certificate details fetched successfully', details),
  // KMP's clients read SSL_RESOURCEID (KMP answers [{SSL_RESOURCEID}]); it is added to our one object, which spec clients read.
  created: (s: CertificateSummary): Reply => reply(`Certificate ${s.commonName} created and saved successfully.`, { ...s, SSL_RESOURCEID: s.Certificate_ID }),
  csrCreated: (c: SavedCsr): Reply => reply(`CSR for ${c.commonName} created and saved successfully.`, c),
  csrImported: (c: SavedCsr): Reply => reply(`CSR ${c.commonName} imported successfully.`, c),
  csrList: (entries: unknown[]): Reply => ({ message: 'CSR list fetched successfully', totalRows: entries.length, extra: { GeneratedList: entries } }),
  signed: (s: CertificateSummary): Reply => reply(`CSR of ${s.commonName} signed successfully.`, [s]),
  added: ({ saved }: { saved: SavedCertificate }): Reply =>
    reply(
      saved.created
        ? `Certificate ${saved.details.subject.cname} added successfully.`
        : `Certificate ${saved.details.subject.cname} already exists; its chain and key were updated.`,
    ),
  notificationEmail: (r: { commonName: string; email: string }): Reply =>
    reply(
      r.email
        ? `Expiry notifications of certificate ${r.commonName} will be sent to ${r.email}.`
        : `Expiry notifications of certificate ${r.commonName} are turned off.`,
      { commonName: r.commonName, Email: r.email },
    ),
  deleted: (d: { commonName: string; excluded: boolean }): Reply =>
    reply(`Certificate ${d.commonName} deleted successfully.${d.excluded ? ' It is excluded from discovery: a later discovery will not add it again.' : ''}`),
  detailsUpdated: (commonName: string): Reply => reply(`SSL Certificate ${commonName} details updated successfully.`),
  additionalFieldsUpdated: (commonName: string): Reply => reply(`Additional field details updated successfully for ${commonName}`),
  passphrase: (p: { commonName: string; passphrase: string }, withDetails: boolean): Reply =>
    reply(passphraseMessage(p.commonName, p.passphrase), withDetails ? { Passphrase: p.passphrase } : undefined),
  deployed: (statuses: DeployStatus[]): Reply => {
    const ok = statuses.filter((s) => s.status === 'Success').length;
    return {
      message: ok === statuses.length ? 'Certificate deployed successfully' : `Certificate deployed to ${ok} of ${statuses.length} servers`,
      status: ok === statuses.length ? 'Success' : 'Failed',
      totalRows: statuses.length,
      extra: { deployStatus: statuses },
    };
  },
  targetSaved: (name: string, created: boolean): Reply =>
    reply(`Deployment target ${name} ${created ? 'saved' : 'updated'} successfully.`),
  caCreated: (ca: CreatedAuthority): Reply =>
    reply(`Certificate authority ${ca.name} created successfully.`, {
      caName: ca.name,
      commonName: ca.commonName,
      serialNumber: ca.serialNumber,
      certificate: ca.certificatePem,
      crlUrl: ca.crlUrl,
    }),
};
