import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// A real SMTP server for the expiry-notice specs: Debian's aiosmtpd (python3-aiosmtpd) on
// loopback, writing each message it accepts to its own file (envelope recipients first).
const SERVER = `
import os, sys, time, uuid
from aiosmtpd.controller import Controller

out = sys.argv[1]

class Sink:
    async def handle_DATA(self, server, session, envelope):
        name = os.path.join(out, uuid.uuid4().hex)
        with open(name + '.tmp', 'wb') as f:
            f.write(('X-Envelope-To: ' + ', '.join(envelope.rcpt_tos) + '\\r\\n').encode())
            f.write(envelope.original_content)
        os.rename(name + '.tmp', name + '.eml')
        return '250 OK'

controller = Controller(Sink(), hostname='127.0.0.1', port=int(sys.argv[2]))
controller.start()
print('ready', flush=True)
sys.stdin.read()
controller.stop()
`;

export interface SmtpSink {
  port: number;
  /** Every message received so far, as text. */
  messages(): string[];
  stop(): Promise<void>;
}

export async function startSmtpSink(port: number): Promise<SmtpSink> {
  const dir = mkdtempSync(join(tmpdir(), 'smtp-sink-'));
  const child: ChildProcess = spawn('/usr/bin/python3', ['-c', SERVER, dir, String(port)], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
    child.once('exit', (code) => reject(new Error(`aiosmtpd exited (${code}): ${stderr}`)));
  });
  return {
    port,
    messages: () =>
      readdirSync(dir)
        .filter((f) => f.endsWith('.eml'))
        .sort()
        .map((f) => readFileSync(join(dir, f), 'utf8')),
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        });
        child.stdin!.end();
      }),
  };
}
