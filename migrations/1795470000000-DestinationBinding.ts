import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 33: each stored password of an account on a managed resource is bound to the
 * destination a decision allowed (libs/gate/src/destination-binding.ts). Accounts of
 * resources already managed are bound to their destination as it is now: it was set before
 * the binding existed, by the decisions of its time.
 */
export class DestinationBinding1795470000000 implements MigrationInterface {
  name = 'DestinationBinding1795470000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE accounts ADD COLUMN bound_destination text`);
    await q.query(`UPDATE accounts a SET bound_destination = concat_ws(' ', r.type || ' at ' || coalesce(nullif(r.dns_name, ''), r.name),
        'port ' || coalesce(r.remote_port::text, 'default'), 'TLS ' || coalesce(r.remote_tls, 'default'),
        'CA ' || coalesce(left(md5(r.remote_ca_cert), 12), 'none'), 'database ' || coalesce(r.remote_database, 'default'),
        'user DN ' || coalesce(r.remote_user_dn, 'none'), 'as ' || a.name,
        'by administrator ' || coalesce(r.remote_account_id::text, 'none'))
      FROM resources r WHERE r.id = a.resource_id AND r.remote_account_id IS NOT NULL`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE accounts DROP COLUMN bound_destination`);
  }
}
