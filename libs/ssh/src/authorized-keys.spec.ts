import { appendAuthorizedKey, dropAuthorizedKey, parseAuthorizedKeys } from './authorized-keys';
import { SshKeyError } from './errors';
import { generateSshKey } from './generate';
import { parsePublicKeyLine, sha256Fingerprint } from './public-key-line';

describe('authorized_keys editing', () => {
  let ed: string;
  let rsa: string;
  let ecdsa: string;

  beforeAll(async () => {
    [ed, rsa, ecdsa] = (
      await Promise.all([
        generateSshKey({ type: 'ed25519', comment: 'ed@host' }),
        generateSshKey({ type: 'rsa', length: 1024, comment: 'rsa@host' }),
        generateSshKey({ type: 'ecdsa', comment: 'ec@host' }),
      ])
    ).map((key) => key.publicKey);
  });

  const bare = (line: string) => line.split(' ').slice(0, 2).join(' ');

  it('appends to an empty file', () => {
    const { content, changed } = appendAuthorizedKey(Buffer.alloc(0), ed);
    expect(changed).toBe(1);
    expect(content.toString()).toBe(`${ed}\n`);
  });

  it('adds a newline first when the file lacks a final one', () => {
    const { content } = appendAuthorizedKey(Buffer.from(rsa), ed);
    expect(content.toString()).toBe(`${rsa}\n${ed}\n`);
  });

  it('does not duplicate a key already present under another comment or with options', () => {
    const existing = Buffer.from(`# admins\nfrom="10.0.0.0/8",command="echo \\"hi there\\"" ${bare(ed)} other comment\n`);
    const result = appendAuthorizedKey(existing, ed);
    expect(result.changed).toBe(0);
    expect(result.content).toBe(existing);
  });

  it('removes every line holding the key and leaves the rest byte for byte', () => {
    const before = `# keep me\r\n${rsa}\r\n${bare(ed)} first copy\n\n  ${ecdsa}\nno-pty ${ed}\ngarbage line \xff\n${rsa} tail-without-newline`;
    const { content, changed } = dropAuthorizedKey(Buffer.from(before, 'latin1'), ed);
    expect(changed).toBe(2);
    expect(content.toString('latin1')).toBe(`# keep me\r\n${rsa}\r\n\n  ${ecdsa}\ngarbage line \xff\n${rsa} tail-without-newline`);
  });

  it('leaves the file untouched when the key is absent', () => {
    const before = Buffer.from(`${rsa}\n`);
    expect(dropAuthorizedKey(before, ecdsa)).toEqual({ content: before, changed: 0 });
  });

  it('lists entries with options, comments and fingerprints', () => {
    const entries = parseAuthorizedKeys(Buffer.from(`# c\nrestrict,from="a b" ${bare(rsa)} my laptop\n${ed}\nnonsense\n`));
    expect(entries.map(({ options, algorithm, comment }) => ({ options, algorithm, comment }))).toEqual([
      { options: 'restrict,from="a b"', algorithm: 'ssh-rsa', comment: 'my laptop' },
      { options: '', algorithm: 'ssh-ed25519', comment: 'ed@host' },
    ]);
    expect(entries[1].fingerprint).toBe(sha256Fingerprint(parsePublicKeyLine(ed).blob));
  });

  it.each([
    ['a line break', () => `${ed}\nssh-rsa AAAA evil`],
    ['a blob of another type', () => `ssh-rsa ${ed.split(' ')[1]}`],
    ['shell text', () => `ssh-ed25519 $(reboot)`],
    ['nothing', () => ''],
  ])('refuses a public key line with %s', (_what, line) => {
    expect(() => appendAuthorizedKey(Buffer.alloc(0), line())).toThrow(SshKeyError);
  });
});
