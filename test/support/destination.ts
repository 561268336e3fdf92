import { DataSource } from 'typeorm';
import { destinationSql } from '@app/gate';

/**
 * For a test that sets a resource's remote settings straight in the database: binds its
 * accounts to that destination, as the decision of the API path would have (issue 33). Without
 * it the server sends none of their passwords there, which is the point of the binding.
 */
export async function bindAsDecided(ds: DataSource, resourceId: number): Promise<void> {
  await ds.query(`UPDATE accounts a SET bound_destination = ${destinationSql()} FROM resources r WHERE r.id = a.resource_id AND r.id = $1`, [resourceId]);
}
