import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AuditOperation, AuditWriter } from '@app/audit';
import { Keyring, PasswordPolicy } from '@app/crypto';
import { PASSWORD_CONTEXT } from '@app/gate';
import { PoliciesService } from '../policies/policies.service';
import { verdictOf } from './compliance';

/** Accounts assessed per transaction. */
const BATCH = 100;

interface Unassessed {
  id: number;
  name: string;
  password: Buffer;
  password_policy: string;
  resource_id: number;
  resource_name: string;
  org_id: number;
}

/**
 * Accounts from before verdicts were kept (migration PasswordComplianceVerdict) have none.
 * At start the vault opens each of those passwords once, as its own use (no caller: the
 * audit row's actor is the system), stores the verdict against the account's policy and
 * audits it, one row per account. Rows are claimed with FOR UPDATE SKIP LOCKED, so
 * instances starting together share the work; it runs in the background after start.
 */
@Injectable()
export class ComplianceBackfill implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('ComplianceBackfill');
  private running?: Promise<number>;
  private stopped = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly keyring: Keyring,
    private readonly audit: AuditWriter,
    private readonly policies: PoliciesService,
  ) {}

  onApplicationBootstrap(): void {
    this.running = this.run().catch((error: Error) => {
      this.logger.error(`Compliance verdicts of older accounts not made: ${error.message}`);
      return 0;
    });
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  /** Assesses every account without a verdict; returns how many. */
  async run(): Promise<number> {
    let done = 0;
    let after = 0;
    while (!this.stopped) {
      const batch = await this.dataSource.transaction((m) => this.batch(m, after));
      if (batch.last === null) break;
      done += batch.assessed;
      after = batch.last;
    }
    if (done) this.logger.log(`Compliance verdicts made for ${done} older account(s)`);
    return done;
  }

  private async batch(m: EntityManager, after: number): Promise<{ assessed: number; last: number | null }> {
    const rows: Unassessed[] = await m.query(
      `SELECT a.id, a.name, a.password, a.password_policy, r.id AS resource_id, r.name AS resource_name, r.org_id
       FROM accounts a JOIN resources r ON r.id = a.resource_id
       WHERE a.compliance_policy IS NULL AND a.id > $1 ORDER BY a.id LIMIT ${BATCH} FOR UPDATE OF a SKIP LOCKED`,
      [after],
    );
    if (!rows.length) return { assessed: 0, last: null };
    const policies = new Map<string, PasswordPolicy | undefined>();
    let assessed = 0;
    for (const row of rows) {
      const key = `${row.org_id}:${row.password_policy.trim().toLowerCase()}`;
      if (!policies.has(key)) policies.set(key, await this.policies.find(row.org_id, row.password_policy));
      let password: string;
      try {
        password = (await this.keyring.open(row.password, PASSWORD_CONTEXT)).toString('utf8');
      } catch (error) {
        // Left without a verdict (shown as unknown) rather than stopping the others.
        this.logger.warn(`Account ${row.id}: password not opened (${(error as Error).message})`);
        continue;
      }
      const verdict = verdictOf(policies.get(key), row.password_policy, password);
      await m.query('UPDATE accounts SET compliance_policy = $2, compliance_problems = $3 WHERE id = $1', [row.id, verdict.policy, verdict.problems]);
      await this.audit.record(
        {
          category: 'Resource',
          operation: AuditOperation.PasswordComplianceChecked,
          actor: null,
          orgId: row.org_id,
          resourceId: row.resource_id,
          resourceName: row.resource_name,
          accountId: row.id,
          accountName: row.name,
          description: 'by the server at start: a password stored before compliance verdicts were kept',
        },
        m,
      );
      assessed += 1;
    }
    return { assessed, last: rows[rows.length - 1].id };
  }
}
