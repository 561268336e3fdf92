import { Inject, Injectable } from '@nestjs/common';
import type { Transporter } from 'nodemailer';
import { APP_CONFIG, AppConfig } from '@app/config';
import { ExpiryFacts, expiryMail, expiryWebhookBody } from './expiry-message';

const TIMEOUT_MS = 15_000;

/** Where expiry notices go: the operator's SMTP relay, and the JSON webhook when one is set. */
@Injectable()
export class ExpiryChannels {
  private readonly smtp?: AppConfig['expiry']['smtp'];
  /** Made at the first mail: an instance without SMTP never loads the mail library. */
  private mail?: Promise<Transporter>;
  private readonly webhookUrl?: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.smtp = config.expiry.smtp;
    this.webhookUrl = config.expiry.webhookUrl;
  }

  get enabled(): boolean {
    return this.smtp !== undefined || this.webhookUrl !== undefined;
  }

  /** Names of the channels that will carry a notice, for the audit row. */
  describe(recipients: string[]): string {
    const parts = [];
    if (this.smtp && recipients.length) parts.push(`mail to ${recipients.join(', ')}`);
    if (this.webhookUrl) parts.push('webhook');
    return parts.join(' and ');
  }

  /** Sends by every configured channel; throws with the first failure (the notice is retried whole). */
  send(facts: ExpiryFacts): Promise<void> {
    return this.deliver({ ...expiryMail(facts), recipients: facts.recipients, webhook: expiryWebhookBody(facts) });
  }

  /** Any notice by the same channels (mail to `recipients`, the JSON body to the webhook). */
  async deliver(notice: { subject: string; text: string; recipients: string[]; webhook: Record<string, unknown> }): Promise<void> {
    if (this.smtp && notice.recipients.length) {
      const mail = await this.transport(this.smtp);
      await mail.sendMail({ from: this.smtp.from, to: notice.recipients, subject: notice.subject, text: notice.text });
    }
    if (this.webhookUrl) {
      const response = await fetch(this.webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(notice.webhook),
        signal: AbortSignal.timeout(TIMEOUT_MS),
        redirect: 'error',
      });
      if (!response.ok) throw new Error(`webhook answered HTTP ${response.status}`);
    }
  }

  close(): void {
    void this.mail?.then((mail) => mail.close(), () => undefined);
  }

  private transport(smtp: NonNullable<AppConfig['expiry']['smtp']>): Promise<Transporter> {
    this.mail ??= import('nodemailer').then(({ createTransport }) =>
      createTransport({
        host: smtp.host,
        port: smtp.port,
        secure: smtp.tls === 'implicit',
        requireTLS: smtp.tls === 'starttls',
        ignoreTLS: smtp.tls === 'off',
        auth: smtp.user ? { user: smtp.user, pass: smtp.password ?? '' } : undefined,
        connectionTimeout: TIMEOUT_MS,
        greetingTimeout: TIMEOUT_MS,
        socketTimeout: TIMEOUT_MS,
      }),
    );
    return this.mail;
  }
}
