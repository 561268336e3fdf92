import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { createTransport, Transporter } from 'nodemailer';
import { APP_CONFIG, AppConfig } from '@app/config';

const TIMEOUT_MS = 15_000;

export interface RotationFailure {
  resource: string;
  account: string;
  trigger: string;
  message: string;
  attempts: number;
  recipients: string[];
}

/**
 * Mail to a schedule's NOTIFY addresses when an account's rotation failed after its last
 * retry, through the operator's SMTP relay (the SMTP_* settings the expiry notices use).
 * The webhook hears of it through the rotation event. Sent after the failure is recorded;
 * a mail that cannot be sent is logged, the failure stays on the account and in the audit.
 */
@Injectable()
export class RotationNotices implements OnModuleDestroy {
  private readonly logger = new Logger('RotationNotices');
  private readonly mail?: Transporter;
  private readonly from?: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const smtp = config.expiry.smtp;
    if (!smtp) return;
    this.from = smtp.from;
    this.mail = createTransport({
      host: smtp.host,
      port: smtp.port,
      secure: smtp.tls === 'implicit',
      requireTLS: smtp.tls === 'starttls',
      ignoreTLS: smtp.tls === 'off',
      auth: smtp.user ? { user: smtp.user, pass: smtp.password ?? '' } : undefined,
      connectionTimeout: TIMEOUT_MS,
      greetingTimeout: TIMEOUT_MS,
      socketTimeout: TIMEOUT_MS,
    });
  }

  rotationFailed(f: RotationFailure): void {
    if (!this.mail || f.recipients.length === 0) return;
    const text = [
      `The password of ${f.account} on ${f.resource} could not be rotated by the ${f.trigger}.`,
      '',
      `Attempts: ${f.attempts}`,
      `Last error: ${f.message}`,
      '',
      'The stored password is unchanged and still the one the target accepted last. Verify the account',
      '(POST .../accounts/{id}/verify) and reconcile it if it is out of sync.',
    ].join('\n');
    this.mail
      .sendMail({ from: this.from, to: f.recipients, subject: `Password rotation failed: ${f.account} on ${f.resource}`, text })
      .catch((error: Error) => this.logger.warn(`Rotation failure notice to ${f.recipients.join(', ')} not sent: ${error.message}`));
  }

  onModuleDestroy(): void {
    this.mail?.close();
  }
}
