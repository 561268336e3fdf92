#!/usr/bin/env node
// Container health check: `node scripts/healthcheck.js vault|pki` exits 0 when that service
// answers 200 on /health over its own port, verifying the server with the service CA the
// services write to DATA_DIR/tls (TLS_MODE=self-signed), the system's CAs otherwise (files),
// or plain HTTP (TLS_MODE=off). Nothing to install: node is in the image.
const { existsSync, readFileSync } = require('node:fs');
const { join } = require('node:path');

const service = process.argv[2] === 'pki' ? 'pki' : 'vault';
const env = process.env;
const port = Number(service === 'pki' ? env.PKI_PORT || 6565 : env.VAULT_PORT || 7272);
const mode = env.TLS_MODE || 'self-signed';
const caFile = join(env.DATA_DIR || '/data', 'tls', 'service-ca.crt');
const client = require(mode === 'off' ? 'node:http' : 'node:https');
const options = { host: '127.0.0.1', servername: 'localhost', port, path: '/health', timeout: 4000 };
if (mode === 'self-signed' && existsSync(caFile)) options.ca = readFileSync(caFile);

const request = client.get(options, (res) => {
  res.resume();
  process.exit(res.statusCode === 200 ? 0 : 1);
});
request.on('timeout', () => request.destroy(new Error('timed out')));
request.on('error', (error) => {
  process.stderr.write(`${service} health: ${error.message}\n`);
  process.exit(1);
});
