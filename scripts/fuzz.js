#!/usr/bin/env node
// The long fuzz campaign: `npm run fuzz -- --runs 100000 [--seed N]` runs the property-based
// suite of test/fuzz with that many generated requests (split between the two services).
// Needs DATABASE_URL like the tests (or starts the embedded PostgreSQL).
const { spawnSync } = require('node:child_process');

const args = process.argv.slice(2);
const option = (name) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? undefined : args[i + 1];
};
const runs = Number(option('runs') ?? 100000);
if (!Number.isInteger(runs) || runs < 2) {
  console.error('usage: npm run fuzz -- [--runs N] [--seed S]');
  process.exit(2);
}
const env = { ...process.env, FUZZ_RUNS: String(runs) };
if (option('seed') !== undefined) env.FUZZ_SEED = option('seed');
const result = spawnSync('npx', ['jest', '--ci', '--runInBand', 'test/fuzz'], { stdio: 'inherit', env, cwd: `${__dirname}/..` });
process.exit(result.status ?? 1);
