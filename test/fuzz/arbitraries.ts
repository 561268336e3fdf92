import fc from 'fast-check';
import { FuzzRoute } from './route-model';

/** What the generated requests may refer to: real rows and tokens, so input reaches deep code. */
export interface FuzzWorld {
  /** Existing ids and names (resources, accounts, users, keys, certificates, groups...). */
  ids: number[];
  names: string[];
  tokens: { admin: string; others: string[] };
  /** Field names any DTO declares, for routes that read input without one. */
  fieldPool: string[];
}

/** One generated HTTP request, as sent byte for byte. */
export interface FuzzRequest {
  route: FuzzRoute;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Whether a valid token was sent (for the report only). */
  tokenKind: string;
}

const ODD_TEXT = [
  '', ' ', '\u0000', 'a\u0000b', '\uFFFF', '\uD800', '😀', 'ß', 'İ', '\u202E', '\r\n', '\t', '%00', '%', "'", '"', '\\', "' OR 1=1 --",
  '<script>alert(1)</script>', '../../etc/passwd', 'NULL', 'null', 'undefined', 'true', 'false', '1e400', '-1', '0', '2147483647',
  '2147483648', '-2147483649', '99999999999999999999', '9'.repeat(400), 'a'.repeat(5000), '0x10', 'NaN', 'Infinity', '1.5',
  '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '127.0.0.1', 'localhost', '127.0.0.1-127.0.0.3',
  '127.0.0.0/30', '10.0.0.0/8', 'example.invalid', 'ssh-rsa', 'ssh-ed25519', 'ed25519', 'rsa', 'RSA', 'LOCAL', 'Linux', 'Windows',
  'view', 'modify', 'fullaccess', 'revoke', 'PEM', 'PKCS12', 'JKS', 'SHA256', 'Administrator', 'Password User', 'LAST_7_DAYS',
  '-----BEGIN CERTIFICATE-----\nMII=\n-----END CERTIFICATE-----', 'CN=fuzz,O=Example', '2026-13-45', '1970-01-01', '9999-12-31',
];
const ODD_NUMBERS = [0, -1, 1, 2, 3, 7, 65535, 65536, 2147483647, 2147483648, -2147483649, Number.MAX_SAFE_INTEGER, 1e21, 1.5, -0, 1e308];
const RESERVED_OBJECTS = ['{"constructor":1}', '{"__proto__":{"x":1}}', '{"prototype":{}}', '{"constructor":{"prototype":{"x":1}}}', '{"__proto__":null}'];

/** A scalar a client might send, from plausible (an existing id or name) to hostile. */
function scalar(world: FuzzWorld): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom<unknown>(...world.ids, ...world.ids.map(String), ...world.names) },
    { weight: 4, arbitrary: fc.constantFrom<unknown>(...ODD_TEXT) },
    { weight: 2, arbitrary: fc.constantFrom<unknown>(...ODD_NUMBERS) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
    { weight: 1, arbitrary: fc.integer() },
    { weight: 1, arbitrary: fc.double() },
    { weight: 1, arbitrary: fc.boolean() },
    { weight: 1, arbitrary: fc.constant(null) },
  );
}

/** Any JSON value: scalars, arrays and objects, reserved keys, and nesting deeper than any request needs. */
function jsonValue(world: FuzzWorld): fc.Arbitrary<unknown> {
  const tree = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, { weight: 6, arbitrary: scalar(world) }, tie('array'), tie('object')),
    array: fc.array(tie('value'), { maxLength: 4 }),
    object: fc.dictionary(fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom(...world.fieldPool.slice(0, 50))), tie('value'), { maxKeys: 4 }),
  })).value;
  return fc.oneof(
    { weight: 10, arbitrary: tree },
    { weight: 1, arbitrary: fc.constantFrom(...RESERVED_OBJECTS).map((text) => JSON.parse(text) as unknown) },
    { weight: 1, arbitrary: fc.integer({ min: 2, max: 300 }).map((depth) => nest(depth)) },
  );
}

function nest(depth: number): unknown {
  let value: unknown = 'deep';
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

/** The Details of INPUT_DATA: mostly the route's own fields (any case), some strangers. */
function details(route: FuzzRoute, world: FuzzWorld): fc.Arbitrary<[string, unknown][]> {
  const names = route.fields.length > 0 ? route.fields : world.fieldPool;
  const key = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...names) },
    { weight: 1, arbitrary: fc.constantFrom(...names).map((n) => n.toLowerCase()) },
    { weight: 1, arbitrary: fc.constantFrom(...world.fieldPool) },
    { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype', '', 'AUTHTOKEN', 'operation', 'Details') },
    { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  );
  const value = fc.oneof({ weight: 3, arbitrary: scalar(world) }, { weight: 1, arbitrary: jsonValue(world) });
  // Pairs, not an object: a key may repeat (duplicated fields) and `__proto__` stays a key.
  return fc.array(fc.tuple(key, value), { maxLength: 8 });
}

/** INPUT_DATA text: the three accepted shapes, lenient JSON, duplicated keys, huge numbers, or garbage. */
function inputDataText(route: FuzzRoute, world: FuzzWorld): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.tuple(details(route, world), fc.constantFrom('operation', 'details', 'flat')).map(([pairs, shape]) => wrap(objectText(pairs), shape)) },
    { weight: 1, arbitrary: details(route, world).map((pairs) => `{operation:{Details:{${pairs.map(([k, v]) => `${/^[A-Za-z_]\w*$/.test(k) ? k : JSON.stringify(k)}:${lenientScalar(v)}`).join(',')}}}}`) },
    { weight: 1, arbitrary: fc.constantFrom(...route.fields, 'LIMIT', 'id').map((k) => `{"operation":{"Details":{"${k}":123456789012345678901234567890e999}}}`) },
    { weight: 1, arbitrary: jsonValue(world).map((v) => JSON.stringify(v) ?? 'null') },
    { weight: 1, arbitrary: fc.oneof(fc.string({ maxLength: 60 }), fc.constantFrom('{', '{"operation":', '{"operation":{"Details":[]}}', '[]', 'null', '1', '"x"', '{}', '{"a":1,}', "{'a':'b'}", '{"a":"\\ud800"}', '{"a":"\\u0000"}')) },
  );
}

function objectText(pairs: [string, unknown][]): string {
  return `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`).join(',')}}`;
}

function wrap(detailsText: string, shape: string): string {
  if (shape === 'operation') return `{"operation":{"Details":${detailsText}}}`;
  if (shape === 'details') return `{"Details":${detailsText}}`;
  return detailsText;
}

function lenientScalar(v: unknown): string {
  if (typeof v === 'string') return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  return JSON.stringify(v) ?? 'null';
}

const MALFORMED_SEGMENTS = ['%', '%uFFFF', '%C3%28', '%E0%A4%A', '%zz', '%00', 'a%00b', '%FF', '%25', '..', '.', '%2F', '%2e%2e'];

/** A value for a path parameter: an existing id or name, a hostile number, or text that does not decode. */
function pathParam(world: FuzzWorld): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...world.ids.map(String), ...world.names).map(enc) },
    { weight: 2, arbitrary: fc.constantFrom(...MALFORMED_SEGMENTS) },
    { weight: 2, arbitrary: fc.constantFrom(...ODD_TEXT.filter((t) => t.length < 500)).map(enc) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }).map(enc) },
    { weight: 1, arbitrary: fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String) },
  );
}

type Carrier = 'header' | 'header-app' | 'query' | 'form' | 'path' | 'none';

function token(world: FuzzWorld): fc.Arbitrary<[string, string]> {
  const pair = (kind: string) => (t: string): [string, string] => [kind, t];
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant(world.tokens.admin).map(pair('admin')) },
    { weight: 2, arbitrary: fc.constantFrom(...world.tokens.others).map(pair('other')) },
    { weight: 1, arbitrary: fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex')).map(pair('bad')) },
    { weight: 1, arbitrary: fc.oneof(fc.string({ maxLength: 80 }), fc.constantFrom('', ' ', '\u0000', '%', '😀', 'x'.repeat(10_000), `${world.tokens.admin} `, world.tokens.admin.toUpperCase())).map(pair('malformed')) },
  );
}

/** A whole request to one of the routes. */
export function fuzzRequest(routes: FuzzRoute[], world: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  return fc.constantFrom(...routes).chain((route) =>
    fc
      .record({
        method: fc.oneof({ weight: 12, arbitrary: fc.constant(route.method) }, { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS') }),
        params: fc.array(pathParam(world), { minLength: 6, maxLength: 6 }),
        pathTwist: fc.constantFrom('none', 'none', 'none', 'none', 'none', 'trailing', 'double', 'upper', 'extra'),
        token: token(world),
        carrier: fc.constantFrom<Carrier>('header', 'header', 'header', 'header-app', 'query', 'form', 'path', 'none'),
        inputCarrier: fc.constantFrom('none', 'query', 'form', 'form', 'json', 'textjson', 'multipart', 'multipart'),
        inputData: inputDataText(route, world),
        extraQuery: fc.array(fc.tuple(fc.oneof(fc.constantFrom(...(route.fields.length ? route.fields : ['x'])), fc.constantFrom('__proto__', 'a[b]', 'INPUT_DATA', '%', '')), fc.oneof(fc.constantFrom(...ODD_TEXT.slice(0, 30)), fc.string({ maxLength: 10 }))), { maxLength: 3 }),
        rawQuery: fc.constantFrom('', '', '', '', '&%', '&a=%zz', '&INPUT_DATA', '&AUTHTOKEN=%uFFFF', '&=&&=='),
        twist: fc.record({
          charset: fc.constantFrom(...NO_TWIST, 'utf-16', 'utf-16le', 'UTF-16BE', 'shift_jis', 'x-bogus', '"', '', 'utf-8'),
          encoding: fc.constantFrom(...NO_TWIST, 'base64', 'quoted-printable', '7bit', 'x-bogus'),
          names: fc.constantFrom(...NO_TWIST, 'missing', 'duplicated', 'empty'),
          boundary: fc.constantFrom(...NO_TWIST, 'mismatch', 'unterminated', 'absent', 'quoted', 'long', 'no-crlf', 'garbage-preamble'),
        }),
        files: fc.array(
          fc.record({
            name: fc.oneof(fc.constantFrom(...(route.parts.length ? route.parts : ['file'])), fc.constantFrom('', 'FILE', '__proto__', 'a[b]', 'ü'.repeat(300), 'INPUT_DATA')),
            filename: fc.constantFrom('a.pem', 'key.p12', '', 'ü.txt', '../../x', 'a"b', 'a\u0000b.txt', 'x'.repeat(300)),
            size: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 2048 }), fc.constant(70_000)),
            pem: fc.boolean(),
          }),
          { maxLength: 2 },
        ),
      })
      .map((g) => build(route, g)),
  );
}

// Mostly well-formed multipart: each twist applies to about one body in three.
const NO_TWIST = ['none', 'none', 'none', 'none', 'none', 'none', 'none', 'none'];

/** What makes a multipart body odd: a part's charset or transfer encoding, its names, its boundary (issue 32). */
interface MultipartTwist {
  charset: string;
  encoding: string;
  names: string;
  boundary: string;
}

interface Generated {
  method: string;
  params: string[];
  pathTwist: string;
  token: [string, string];
  carrier: Carrier;
  inputCarrier: string;
  inputData: string;
  extraQuery: [string, string][];
  rawQuery: string;
  files: { name: string; filename: string; size: number; pem: boolean }[];
  twist: MultipartTwist;
}

function build(route: FuzzRoute, g: Generated): FuzzRequest {
  let i = 0;
  let path = route.path.replace(/:[A-Za-z_]+/g, () => g.params[i++ % g.params.length]);
  if (g.pathTwist === 'trailing') path += '/';
  if (g.pathTwist === 'double') path = path.replace('/', '//');
  if (g.pathTwist === 'upper') path = path.toUpperCase();
  if (g.pathTwist === 'extra') path += `/${g.params[5]}`;
  const [tokenKind, tokenValue] = g.token;
  // Header values must be visible ASCII; anything else rides in the query string.
  const carrier = (g.carrier === 'header' || g.carrier === 'header-app') && !/^[\x21-\x7e]*$/.test(tokenValue) ? 'query' : g.carrier;
  const headers: Record<string, string> = {};
  const query: [string, string][] = [...g.extraQuery];
  const form: [string, string][] = [];
  if (carrier === 'header') headers.AUTHTOKEN = tokenValue;
  if (carrier === 'header-app') headers.app_authtoken = tokenValue;
  if (carrier === 'query') query.push(['AUTHTOKEN', tokenValue]);
  if (carrier === 'form') form.push(['AUTHTOKEN', tokenValue]);
  if (carrier === 'path') path += `/AUTHTOKEN=${enc(tokenValue)}`;
  let body: Buffer | undefined;
  if (g.inputCarrier === 'query') query.push(['INPUT_DATA', g.inputData]);
  if (g.inputCarrier === 'form') form.push(['INPUT_DATA', g.inputData]);
  if (g.inputCarrier === 'json' || g.inputCarrier === 'textjson') {
    headers['Content-Type'] = g.inputCarrier === 'json' ? 'application/json' : 'text/json';
    body = Buffer.from(form.length ? `${g.inputData}` : g.inputData);
  }
  if (g.inputCarrier === 'multipart') {
    const boundary = g.twist.boundary === 'long' ? 'b'.repeat(200) : 'fuzzboundary7d1';
    headers['Content-Type'] = contentTypeFor(boundary, g.twist);
    body = multipart(boundary, [...form, ['INPUT_DATA', g.inputData]], g.files, g.twist);
  } else if (form.length > 0 && !body) {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    body = Buffer.from(form.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&'));
  }
  const qs = query.map(([k, v]) => `${k === '%' || k === 'a[b]' ? k : enc(k)}=${enc(v)}`).join('&') + g.rawQuery;
  if (qs) path += `?${qs.replace(/^&/, '')}`;
  return { route, method: g.method, path, headers, body, tokenKind };
}

function contentTypeFor(boundary: string, twist: MultipartTwist): string {
  if (twist.boundary === 'absent') return 'multipart/form-data';
  if (twist.boundary === 'quoted') return `multipart/form-data; boundary="${boundary}"; charset=utf-16`;
  if (twist.boundary === 'mismatch') return 'multipart/form-data; boundary=other-boundary';
  return `multipart/form-data; boundary=${boundary}`;
}

function multipart(boundary: string, fields: [string, string][], files: Generated['files'], twist: MultipartTwist): Buffer {
  const eol = twist.boundary === 'no-crlf' ? '\n' : '\r\n';
  const chunks: Buffer[] = twist.boundary === 'garbage-preamble' ? [Buffer.from('preamble \u0000 text\r\n')] : [];
  const named = (name: string) => (twist.names === 'missing' ? '' : `; name="${twist.names === 'empty' ? '' : name}"`);
  for (const [name, value] of fields) {
    const headers = [`Content-Disposition: form-data${named(name)}`];
    if (twist.charset !== 'none') headers.push(`Content-Type: text/plain; charset=${twist.charset}`);
    if (twist.encoding !== 'none') headers.push(`Content-Transfer-Encoding: ${twist.encoding}`);
    const part = Buffer.concat([Buffer.from(`--${boundary}${eol}${headers.join(eol)}${eol}${eol}`), encodeText(value, twist.charset), Buffer.from(eol)]);
    chunks.push(part);
    if (twist.names === 'duplicated') chunks.push(part);
  }
  for (const f of files) {
    const content = f.pem
      ? Buffer.from(`-----BEGIN CERTIFICATE-----\n${Buffer.alloc(f.size % 3000, 7).toString('base64')}\n-----END CERTIFICATE-----\n`)
      : Buffer.alloc(f.size, 0x5a);
    chunks.push(Buffer.from(`--${boundary}${eol}Content-Disposition: form-data${named(f.name)}; filename="${f.filename}"${eol}Content-Type: application/octet-stream${eol}${eol}`));
    chunks.push(content, Buffer.from(eol));
  }
  if (twist.boundary !== 'unterminated') chunks.push(Buffer.from(`--${boundary}--${eol}`));
  return Buffer.concat(chunks);
}

/** A text part's bytes in its declared charset (UTF-16 either way round), else UTF-8. */
function encodeText(value: string, charset: string): Buffer {
  const lower = charset.toLowerCase();
  if (lower === 'utf-16le' || lower === 'utf-16') return Buffer.from(value, 'utf16le');
  if (lower === 'utf-16be') return Buffer.from(value, 'utf16le').swap16();
  return Buffer.from(value, 'utf8');
}

/** encodeURIComponent that takes lone surrogates too (as their UTF-8 replacement). */
function enc(text: string): string {
  return [...Buffer.from(text, 'utf8')].map((b) => (/[A-Za-z0-9_.!~*'()-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');
}

/** How a request is shown in a report: enough to replay it. */
export function describeRequest(r: FuzzRequest): string {
  const body = r.body ? ` body(${r.body.length}B)=${JSON.stringify(r.body.subarray(0, 300).toString('utf8'))}` : '';
  return `${r.method} ${r.path.slice(0, 300)} headers=${JSON.stringify(r.headers).slice(0, 200)}${body}`;
}
