/** What one expiry notice says, by mail and to the webhook. */
export interface ExpiryFacts {
  certificateId: number;
  commonName: string;
  serialNumber: string;
  issuer: string;
  notAfter: Date;
  thresholdDays: number;
  /** host:port where discovery found the certificate in use. */
  deployedAt: string[];
  recipients: string[];
}

const DAY_MS = 86_400_000;

export function daysLeft(notAfter: Date, now = new Date()): number {
  return Math.max(0, Math.ceil((notAfter.getTime() - now.getTime()) / DAY_MS));
}

export function expiryMail(f: ExpiryFacts, now = new Date()): { subject: string; text: string } {
  const left = daysLeft(f.notAfter, now);
  const expires = f.notAfter.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
  const where = f.deployedAt.length ? f.deployedAt.map((d) => `  - ${d}`).join('\n') : '  (not found on any server by discovery)';
  return {
    subject: `Certificate ${f.commonName} expires in ${left} day${left === 1 ? '' : 's'} (${expires})`,
    text: [
      `The certificate ${f.commonName} expires on ${expires}, in ${left} day${left === 1 ? '' : 's'}.`,
      '',
      `Common name:   ${f.commonName}`,
      `Serial number: ${f.serialNumber}`,
      `Issuer:        ${f.issuer}`,
      `Expires:       ${expires}`,
      '',
      'Deployed at:',
      where,
      '',
      `This is the ${f.thresholdDays}-day notice. Renew the certificate, or change its Expiry Notification Email`,
      'with setCertificateNotificationEmail to stop these notices.',
    ].join('\n'),
  };
}

export function expiryWebhookBody(f: ExpiryFacts, now = new Date()): Record<string, unknown> {
  return {
    event: 'certificate.expiring',
    certificateId: f.certificateId,
    commonName: f.commonName,
    serialNumber: f.serialNumber,
    issuer: f.issuer,
    notAfter: f.notAfter.toISOString(),
    daysLeft: daysLeft(f.notAfter, now),
    thresholdDays: f.thresholdDays,
    deployedAt: f.deployedAt,
    recipients: f.recipients,
  };
}
