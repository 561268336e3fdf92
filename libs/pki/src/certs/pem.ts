export interface PemBlock {
  label: string;
  der: Buffer;
}

const PEM_RE = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;

export function pemBlocks(text: string): PemBlock[] {
  const blocks: PemBlock[] = [];
  for (const match of text.matchAll(PEM_RE)) {
    // Headers such as Proc-Type sit before a blank line; only the base64 body matters here.
    const body = match[2].includes(':') ? match[2].split(/\r?\n\r?\n/).pop() ?? '' : match[2];
    blocks.push({ label: match[1], der: Buffer.from(body.replace(/\s+/g, ''), 'base64') });
  }
  return blocks;
}

export function toPem(der: Buffer | Uint8Array | ArrayBuffer, label: string): string {
  const b64 = Buffer.from(der as Uint8Array).toString('base64');
  const lines = b64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

export function isPem(input: string | Buffer): boolean {
  const head = Buffer.isBuffer(input) ? input.subarray(0, 4096).toString('latin1') : input;
  return head.includes('-----BEGIN ');
}

export function asText(input: string | Buffer): string {
  return Buffer.isBuffer(input) ? input.toString('latin1') : input;
}

export function joinPems(pems: string[]): string {
  return pems.map((p) => (p.endsWith('\n') ? p : `${p}\n`)).join('');
}
