/**
 * The curl examples of docs/api/*.md, read the way a shell would: each `### METHOD /path`
 * section's documented operation name, the `Details` keys its Answer line names, and every
 * curl command of its code blocks (method, service, path, INPUT_DATA, form parts).
 */
export interface DocExample {
  heading: string;
  operation?: string;
  /** Keys the Answer line promises under Details (`Details.X`, `Details` `X`, `Details[]` of `X`). */
  detailKeys: string[];
  method: string;
  service: 'vault' | 'pki';
  path: string;
  query: Record<string, string>;
  inputData?: string;
  multipart: boolean;
  files: string[];
}

/** Shell words of one command line: single and double quotes, backslash escapes; `#` comments dropped. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let current = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      current += line.slice(i + 1, end === -1 ? line.length : end);
      i = end === -1 ? line.length : end;
      inWord = true;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === '\\' && j + 1 < line.length) j++;
        current += line[j];
      }
      i = j;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      current += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
    } else if (c === '#' && !inWord) {
      break;
    } else {
      current += c;
      inWord = true;
    }
  }
  if (inWord) words.push(current);
  return words;
}

const BASES: [RegExp, 'vault' | 'pki'][] = [
  [/^\$VAULT|^https?:\/\/[^/]*:7272/, 'vault'],
  [/^\$PKI|^https?:\/\/[^/]*:6565/, 'pki'],
];

function parseCurl(words: string[]): Omit<DocExample, 'heading' | 'operation' | 'detailKeys'> | undefined {
  let method: string | undefined;
  let get = false;
  let url: string | undefined;
  let inputData: string | undefined;
  let multipart = false;
  let data = false;
  const files: string[] = [];
  for (let i = 1; i < words.length; i++) {
    const w = words[i];
    if (w === '-X') method = words[++i];
    else if (w === '-G' || w === '--get') get = true;
    else if (w === '-H' || w === '-o') i++;
    else if (w === '--data-urlencode' || w === '-d' || w === '--data') {
      data = true;
      const value = words[++i];
      if (value.startsWith('INPUT_DATA=')) inputData = value.slice('INPUT_DATA='.length);
    } else if (w === '-F') {
      multipart = true;
      const value = words[++i];
      if (value.startsWith('INPUT_DATA=')) inputData = value.slice('INPUT_DATA='.length);
      else if (/^[A-Za-z]+=@/.test(value)) files.push(value.split('=')[0]);
    } else if (!w.startsWith('-') && BASES.some(([re]) => re.test(w))) url = w;
  }
  if (!url) return undefined;
  const service = BASES.find(([re]) => re.test(url!))![1];
  const [path, search] = url.replace(/^\$[A-Z]+|^https?:\/\/[^/]+/, '').split('?');
  const query = Object.fromEntries(new URLSearchParams(search ?? ''));
  return { method: method ?? (get || (!data && !multipart) ? 'GET' : 'POST'), service, path, query, inputData, multipart, files };
}

export function docExamples(markdown: string): DocExample[] {
  const out: DocExample[] = [];
  const sections = markdown.split(/^(?=#{1,3} )/m);
  for (const section of sections) {
    const heading = /^### ([A-Z]+ \/\S*)\s*$/m.exec(section.split('\n')[0])?.[1];
    if (!heading) continue;
    const operation = /^Operation `([^`]+)`/m.exec(section)?.[1];
    const answer = /^Answer:([\s\S]*?)(?:\n\n|$)/m.exec(section)?.[1] ?? '';
    const detailKeys = [
      ...[...answer.matchAll(/`Details\.([A-Za-z_]+)`/g)].map((m) => m[1]),
      ...[...answer.matchAll(/`Details` ((?:`[A-Za-z_ ]+`(?:, | and )?)+)/g)].flatMap((m) => [...m[1].matchAll(/`([A-Za-z_ ]+)`/g)].map((k) => k[1])),
      // `Details[]` / `details[]` of `A`, `B` (...): the keys of each entry, up to the first word that is not a key.
      ...[...answer.matchAll(/`[Dd]etails\[\]` of ((?:`[A-Za-z_ /]+`(?: \([^)]*\))?(?:, | and )?)+)/g)].flatMap((m) =>
        [...m[1].replace(/\([^)]*\)/g, '').matchAll(/`([A-Za-z_ /]+)`/g)].map((k) => k[1]),
      ),
    ];
    const blocks = [...section.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].map((m) => m[1]);
    for (const block of blocks) {
      const commands = block.replace(/\\\n\s*/g, ' ').split('\n').filter((l) => /^\s*curl\s/.test(l));
      for (const command of commands) {
        const parsed = parseCurl(shellWords(command.trim()));
        if (parsed) out.push({ heading, operation, detailKeys, ...parsed });
      }
    }
  }
  return out;
}
