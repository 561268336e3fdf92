// Runs the real ACME clients (Debian's certbot and lego) against our server, without a TTY.
import { execFile } from 'node:child_process';
import { join } from 'node:path';

export interface ToolResult {
  code: number;
  out: string;
}

export function run(cmd: string, args: string[], env: Record<string, string>): Promise<ToolResult> {
  return new Promise((resolve) => {
    const child = execFile(cmd, args, { env: { ...process.env, ...env }, timeout: 180_000, maxBuffer: 8 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, out: `${stdout}\n${stderr}` });
    });
    child.stdin?.end();
  });
}

/** certbot with every directory under `dir` (no root paths), standalone http-01 on 127.0.0.1. */
export function certbot(dir: string, rootPem: string, args: string[]): Promise<ToolResult> {
  return run(
    'certbot',
    [...args, '--non-interactive', '--config-dir', join(dir, 'config'), '--work-dir', join(dir, 'work'), '--logs-dir', join(dir, 'logs')],
    { REQUESTS_CA_BUNDLE: rootPem },
  );
}

export function lego(dir: string, rootPem: string, server: string, args: string[]): Promise<ToolResult> {
  return run('lego', ['--server', server, '--path', dir, '--accept-tos', '--email', 'acme@example.com', ...args], { LEGO_CA_CERTIFICATES: rootPem });
}

/** Fails with the tool's own output, so a refusal explains itself. */
export function expectOk(result: ToolResult): void {
  if (result.code !== 0) throw new Error(`exit ${result.code}:\n${result.out.slice(-4000)}`);
}
