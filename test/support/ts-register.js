// Lets a child process run the TypeScript sources as the tests do (swc, the @app/* aliases):
//   node -r ./test/support/ts-register.js apps/vault/src/main.ts
// so process-level tests (signals, exit codes) need no build.
const Module = require('node:module');
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { transformSync } = require('@swc/core');

const root = join(__dirname, '..', '..');
const swc = JSON.parse(readFileSync(join(root, '.swcrc'), 'utf8'));
delete swc.$schema;
delete swc.jsc.baseUrl;
delete swc.jsc.paths;

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const alias = /^@app\/([a-z-]+)(\/.*)?$/.exec(request);
  return resolve.call(this, alias ? join(root, 'libs', alias[1], 'src') + (alias[2] ?? '') : request, ...rest);
};

Module._extensions['.ts'] = function (module, filename) {
  const { code } = transformSync(readFileSync(filename, 'utf8'), { ...swc, filename, sourceMaps: 'inline' });
  module._compile(code, filename);
};
