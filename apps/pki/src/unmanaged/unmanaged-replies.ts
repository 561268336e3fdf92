import { Reply } from '@app/http';
import type { ImportOutcome } from '@app/pki/unmanaged';

/** details[] holds one object of `<file>::<n>` → placeholder; totalRows counts the files. */
export function listReplyOf(entries: Record<string, string>): Reply {
  const count = Object.keys(entries).length;
  return {
    message: count ? `${count} unmanaged keystore file(s) found; fill in each password and upload the object to discoverUnmanagedCert` : 'No unmanaged keystore files found',
    details: [entries],
    totalRows: count,
  };
}

/** Status/Message (capitalised by the route) and ImportedCertificate[]; per-file failures in details.FailedCertificate. */
export function importReply(outcome: ImportOutcome): Reply {
  const failures = Object.entries(outcome.failed).map(([key, reason]) => `${key}: ${reason}`);
  const imported = outcome.imported.length ? `${outcome.imported.length} keystore file(s) imported successfully` : 'No keystore file was imported';
  return {
    message: failures.length ? `${imported}; failed: ${failures.join('; ')}` : imported,
    status: outcome.imported.length ? undefined : 'Failed',
    details: { ImportedCertificate: outcome.imported, FailedCertificate: outcome.failed },
    extra: { ImportedCertificate: outcome.imported },
  };
}
