// Runs the TypeScript sources directly in a child process (as jest does, with swc), so a
// test can start a real service instance it may SIGKILL: `node -r <this file> apps/vault/src/main.ts`.
const Module = require('node:module');
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { transformSync } = require('@swc/core');

const root = join(__dirname, '..', '..');
const swcrc = JSON.parse(readFileSync(join(root, '.swcrc'), 'utf8'));
delete swcrc.$schema;
delete swcrc.jsc.baseUrl;
delete swcrc.jsc.paths;
swcrc.sourceMaps = false;

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const alias = /^@app\/([a-z-]+)(\/.*)?$/.exec(request);
  if (alias) request = join(root, 'libs', alias[1], 'src', alias[2] ?? '');
  return resolve.call(this, request, ...rest);
};
require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(readFileSync(filename, 'utf8'), { ...swcrc, filename });
  module._compile(code, filename);
};
