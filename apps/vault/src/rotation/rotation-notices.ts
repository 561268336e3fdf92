import { Injectable, Logger } from '@nestjs/common';
import { ExpiryChannels } from '@app/pki/expiry-notices';

export interface RotationFailure {
  resource: string;
  account: string;
  trigger: string;
  message: string;
  attempts: number;
  recipients: string[];
}

/**
 * The notice of a rotation that failed after its last retry: mail to the schedule's NOTIFY
 * addresses and the operator's notice webhook, by the channels the expiry notices use
 * (SMTP_*, EXPIRY_WEBHOOK_URL). Sent after the failure is recorded; a notice that cannot be
 * sent is logged, the failure stays on the account and in the audit trail.
 */
@Injectable()
export class RotationNotices {
  private readonly logger = new Logger('RotationNotices');

  constructor(private readonly channels: ExpiryChannels) {}

  rotationFailed(f: RotationFailure): void {
    const text = [
      `The password of ${f.account} on ${f.resource} could not be rotated by the ${f.trigger}.`,
      '',
      `Attempts: ${f.attempts}`,
      `Last error: ${f.message}`,
      '',
      'The stored password is unchanged and still the one the target accepted last. Verify the account',
      '(POST .../accounts/{id}/verify) and reconcile it if it is out of sync.',
    ].join('\n');
    const webhook = { event: 'password.rotation_failed', resource: f.resource, account: f.account, trigger: f.trigger, attempts: f.attempts, message: f.message };
    this.channels
      .deliver({ subject: `Password rotation failed: ${f.account} on ${f.resource}`, text, recipients: f.recipients, webhook })
      .catch((error: Error) => this.logger.warn(`Rotation failure notice for ${f.account} on ${f.resource} not sent: ${error.message}`));
  }
}
