import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AcmeProblem } from '../acme';
import { affected } from './affected';

// A nonce is good for an hour; old ones are swept now and then by whoever issues one.
const LIFETIME = `interval '1 hour'`;
const SWEEP_EVERY = 200;

/** Replay-Nonce values in PostgreSQL, so that any instance accepts a nonce another one issued, once. */
@Injectable()
export class NonceStore {
  private issued = 0;

  constructor(private readonly dataSource: DataSource) {}

  async issue(): Promise<string> {
    const value = randomBytes(18).toString('base64url');
    await this.dataSource.query('INSERT INTO acme_nonces (value) VALUES ($1)', [value]);
    if (++this.issued % SWEEP_EVERY === 0) {
      await this.dataSource.query(`DELETE FROM acme_nonces WHERE created_at < now() - ${LIFETIME}`);
    }
    return value;
  }

  /** Spends a nonce; badNonce (which clients retry with the fresh nonce) when unknown, used or stale. */
  async consume(value: unknown): Promise<void> {
    if (typeof value !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(value)) {
      throw new AcmeProblem('badNonce', 'The JWS header needs a nonce from this server');
    }
    const result = await this.dataSource.query(`DELETE FROM acme_nonces WHERE value = $1 AND created_at > now() - ${LIFETIME}`, [value]);
    if (affected(result) === 0) throw new AcmeProblem('badNonce', 'The nonce is unknown, already used or expired');
  }
}
