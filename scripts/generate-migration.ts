import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDataSource } from '../libs/persistence/src/data-source';

// Writes migrations/<timestamp>-<Name>.ts with the SQL that brings a database at the
// current migration head to the entities' schema. Run against a scratch database:
//   DATABASE_URL=postgres://... npm run migration:generate -- Name
async function main(): Promise<void> {
  const name = process.argv[2];
  const url = process.env.DATABASE_URL;
  if (!name || !/^[A-Z][A-Za-z0-9]+$/.test(name) || !url) {
    throw new Error('usage: DATABASE_URL=... generate-migration <PascalCaseName>');
  }
  const ds = createDataSource(url, 2);
  await ds.initialize();
  await ds.runMigrations();
  const sql = await ds.driver.createSchemaBuilder().log();
  await ds.destroy();
  if (sql.upQueries.length === 0) {
    console.log('Schema is up to date; nothing to generate.');
    return;
  }
  const stamp = Date.now();
  const line = (q: { query: string; parameters?: unknown[] }) =>
    `    await queryRunner.query(${JSON.stringify(q.query)}${q.parameters?.length ? `, ${JSON.stringify(q.parameters)}` : ''});`;
  const body = `import { MigrationInterface, QueryRunner } from 'typeorm';

export class ${name}${stamp} implements MigrationInterface {
  name = '${name}${stamp}';

  public async up(queryRunner: QueryRunner): Promise<void> {
${sql.upQueries.map(line).join('\n')}
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
${sql.downQueries.reverse().map(line).join('\n')}
  }
}
`;
  const file = join(__dirname, '..', '..', 'migrations', `${stamp}-${name}.ts`);
  writeFileSync(file.replace('/dist/', '/'), body);
  console.log(`Wrote migrations/${stamp}-${name}.ts; add it to migrations/index.ts`);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
