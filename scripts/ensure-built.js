#!/usr/bin/env node
// Builds dist/ when any TypeScript source is newer than the last build, so that
// `npm start` and `npm run admin` work straight after `npm install` or a `git pull`.
const { execSync } = require('node:child_process');
const { existsSync, readdirSync, statSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const stamp = join(root, 'dist', '.build-stamp');
const built = existsSync(stamp) ? statSync(stamp).mtimeMs : 0;

function newest(dir) {
  let latest = 0;
  if (!existsSync(dir)) return latest;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) latest = Math.max(latest, newest(path));
    else if (entry.name.endsWith('.ts')) latest = Math.max(latest, statSync(path).mtimeMs);
  }
  return latest;
}

const sources = Math.max(...['apps', 'libs', 'migrations', 'scripts', 'bench'].map((d) => newest(join(root, d))));
if (sources > built) {
  process.stderr.write('Building...\n');
  execSync('npx tsc -p tsconfig.build.json && npx tsc-alias -p tsconfig.build.json', { cwd: root, stdio: 'inherit' });
  writeFileSync(stamp, new Date().toISOString());
}
