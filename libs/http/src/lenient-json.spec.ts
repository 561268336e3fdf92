import { InputDataSyntaxError, MAX_INPUT_DATA_BYTES, parseLenientJson, pickField } from './lenient-json';

function details(text: string): unknown {
  return (parseLenientJson(text) as { operation: { Details: unknown } }).operation.Details;
}

describe('parseLenientJson, forms real clients send', () => {
  it('reads strict JSON as JSON.parse does', () => {
    const text = '{"operation":{"Details":{"HOST":"h","PORT":22,"ON":true,"X":null,"L":[1,"2"]}}}';
    expect(parseLenientJson(text)).toEqual(JSON.parse(text));
    expect(parseLenientJson('"just a string"')).toBe('just a string');
  });

  it('reads Python-style single quotes', () => {
    expect(details("{'operation':{'Details':{'HOST':'h'}}}")).toEqual({ HOST: 'h' });
  });

  it('reads unquoted keys and values', () => {
    expect(details('{operation:{Details:{fileType:CERTFILE}}}')).toEqual({ fileType: 'CERTFILE' });
  });

  it('reads mixed quoting', () => {
    expect(details(`{"operation":{Details:{'HOST':h, "PORT": 22, NOTES:"a 'b'"}}}`)).toEqual({ HOST: 'h', PORT: 22, NOTES: "a 'b'" });
  });

  it('reads nested arrays of objects with spaces inside quoted values', () => {
    expect(details("{'operation':{'Details':{'ACCOUNTLIST':[{'ACCOUNTNAME':'a','PASSWORD':'p w'}]}}}")).toEqual({
      ACCOUNTLIST: [{ ACCOUNTNAME: 'a', PASSWORD: 'p w' }],
    });
    expect(parseLenientJson("[[1, 'a'], [], {}, [{b:[c]}]]")).toEqual([[1, 'a'], [], {}, [{ b: ['c'] }]]);
  });

  it('reads unquoted values holding dots, dashes, slashes, colons, @ and *', () => {
    expect(parseLenientJson('{Details:{HOST:www.example.com,PORT:443,PATH:/etc/ssl}}')).toEqual({
      Details: { HOST: 'www.example.com', PORT: 443, PATH: '/etc/ssl' },
    });
    expect(
      parseLenientJson('{URL: https://host:8443/a-b?x=1 , MAIL:ops@example.com, CN:*.example.com, DN:CN=a/O=b, T:2024-01-01 10:00}'),
    ).toEqual({ URL: 'https://host:8443/a-b?x=1', MAIL: 'ops@example.com', CN: '*.example.com', DN: 'CN=a/O=b', T: '2024-01-01 10:00' });
  });

  it('keeps spaces inside an unquoted value and trims around it', () => {
    expect(parseLenientJson('{ RESOURCE NAME :  my server  , x : y }')).toEqual({ 'RESOURCE NAME': 'my server', x: 'y' });
  });

  it('turns bare true, false, null and Python True, False, None into JSON values', () => {
    expect(parseLenientJson('{a:true,b:False,c:None,d:null,e:True,f:TRUE,g:false}')).toEqual({
      a: true,
      b: false,
      c: null,
      d: null,
      e: true,
      f: 'TRUE',
      g: false,
    });
  });

  it('turns a bare number into a number only when nothing is lost', () => {
    expect(parseLenientJson('{a:42,b:-1.5,c:007,d:1.50,e:12345678901234567890,f:1e3,g:0,h:+1}')).toEqual({
      a: 42,
      b: -1.5,
      c: '007',
      d: '1.50',
      e: '12345678901234567890',
      f: '1e3',
      g: 0,
      h: '+1',
    });
  });

  it('accepts trailing commas, surrounding whitespace, newlines and a byte order mark', () => {
    expect(parseLenientJson("\uFEFF\n  {\n  'a' : [1, 2, ],\n  b: {c: d,},\n}\n\t")).toEqual({ a: [1, 2], b: { c: 'd' } });
  });

  it('reads escapes in both quote styles, keeps unknown ones as written', () => {
    expect(parseLenientJson(String.raw`{'a':'it\'s', "b":"say \"hi\"", 'c':'\u00e9\x41\n', 'd':'C:\Users\d', 'e':"a\\b"}`)).toEqual({
      a: "it's",
      b: 'say "hi"',
      c: 'éA\n',
      d: 'C:\\Users\\d',
      e: 'a\\b',
    });
  });

  it('allows raw newlines inside quoted strings, such as a pasted PEM', () => {
    expect(parseLenientJson("{'PEM':'-----BEGIN X-----\nAAA\n-----END X-----'}")).toEqual({ PEM: '-----BEGIN X-----\nAAA\n-----END X-----' });
  });

  it('keeps a __proto__ key as data, as JSON.parse does', () => {
    const parsed = parseLenientJson("{'__proto__':{'admin':true}}") as Record<string, unknown>;
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect((parsed as { admin?: unknown }).admin).toBeUndefined();
    expect(Object.keys(parsed)).toEqual(['__proto__']);
  });

  it('lets the last duplicate key win, as JSON.parse does', () => {
    expect(parseLenientJson("{a:1, 'a':2}")).toEqual({ a: 2 });
  });
});

describe('parseLenientJson errors and limits', () => {
  it.each<[string, string]>([
    ["{'a':1}}", "INPUT_DATA is not valid JSON: unexpected '}' at position 7, expected nothing more"],
    ["{'operation':{'Details':}}", "INPUT_DATA is not valid JSON: unexpected '}' at position 24, expected a value"],
    ["{'a':'b' 'c'}", "INPUT_DATA is not valid JSON: unexpected ''' at position 9, expected ',' or '}'"],
    ['{a:1', "INPUT_DATA is not valid JSON: unexpected end of input at position 4, expected ',' or '}'"],
    ["{'a':'open", 'INPUT_DATA is not valid JSON: unterminated string starting at position 5'],
    ['{a:[1,2}', "INPUT_DATA is not valid JSON: unexpected '}' at position 7, expected ',' or ']'"],
    ['{,a:1}', "INPUT_DATA is not valid JSON: unexpected ',' at position 1, expected a field name"],
    ['{a:1,,b:2}', "INPUT_DATA is not valid JSON: unexpected ',' at position 5, expected a field name"],
    ['{a b}', "INPUT_DATA is not valid JSON: unexpected '}' at position 4, expected ':'"],
    ['{PASSWORD:a{b}}', "INPUT_DATA is not valid JSON: unexpected '{' at position 11, expected ',', '}' or ']'"],
    ['RESOURCENAME=x', "INPUT_DATA is not valid JSON: unexpected 'R' at position 0, expected '{' or '['"],
    ["{'a':'\\u12'}", 'INPUT_DATA is not valid JSON: invalid \\u escape at position 6'],
    ['   ', 'INPUT_DATA is empty'],
    ['', 'INPUT_DATA is empty'],
  ])('refuses %j', (text, message) => {
    expect(() => parseLenientJson(text)).toThrow(new InputDataSyntaxError(message));
  });

  it('throws InputDataSyntaxError, an Error', () => {
    const error = (() => {
      try {
        parseLenientJson('{');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(InputDataSyntaxError);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).name).toBe('InputDataSyntaxError');
  });

  it('allows 32 levels of nesting and refuses 33, strict or lenient', () => {
    const arrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
    const objects = (depth: number, key: string) => `{${key}:`.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);
    expect(() => parseLenientJson(arrays(32))).not.toThrow();
    expect(() => parseLenientJson(objects(32, '"a"'))).not.toThrow();
    expect(() => parseLenientJson(objects(32, 'a'))).not.toThrow();
    expect(() => parseLenientJson(arrays(33))).toThrow(new InputDataSyntaxError('INPUT_DATA is nested more than 32 levels deep'));
    expect(() => parseLenientJson(objects(33, '"a"'))).toThrow('nested more than 32 levels');
    expect(() => parseLenientJson(objects(33, 'a'))).toThrow('nested more than 32 levels');
    expect(() => parseLenientJson('['.repeat(100000))).toThrow('nested more than 32 levels');
  });

  it('does not count brackets inside strings as nesting', () => {
    const text = JSON.stringify({ a: '['.repeat(100) + '\\"{{' });
    expect(parseLenientJson(text)).toEqual({ a: '['.repeat(100) + '\\"{{' });
  });

  it('reads a lenient document close to the limit', () => {
    const entries = Array.from({ length: 22000 }, (_, i) => `{ACCOUNTNAME:acc${i}, 'PASSWORD':'p\\'w ${i}'}`);
    const text = `{operation:{Details:{ACCOUNTLIST:[${entries.join(',')}]}}}`;
    expect(Buffer.byteLength(text)).toBeGreaterThan(MAX_INPUT_DATA_BYTES * 0.8);
    const list = (details(text) as { ACCOUNTLIST: unknown[] }).ACCOUNTLIST;
    expect(list).toHaveLength(22000);
    expect(list[21999]).toEqual({ ACCOUNTNAME: 'acc21999', PASSWORD: "p'w 21999" });
  });

  it('refuses more than 1 MiB, counted in UTF-8 bytes', () => {
    const fits = `{"a":"${'x'.repeat(MAX_INPUT_DATA_BYTES - 8)}"}`;
    expect(Buffer.byteLength(fits)).toBe(MAX_INPUT_DATA_BYTES);
    expect(() => parseLenientJson(fits)).not.toThrow();
    expect(() => parseLenientJson(fits.replace('x', 'é'))).toThrow('INPUT_DATA is larger than the 1 MiB limit');
  });
});

describe('pickField', () => {
  it('prefers the exact key, then matches ignoring case', () => {
    expect(pickField({ host: 'lower', HOST: 'exact' }, 'HOST')).toBe('exact');
    expect(pickField({ Host: 'h' }, 'HOST')).toBe('h');
    expect(pickField({ 'Resource Name': 'r' }, 'RESOURCE NAME')).toBe('r');
    expect(pickField({ HOST: 'h' }, 'PORT')).toBeUndefined();
  });

  it('reads own keys only', () => {
    expect(pickField({}, 'toString')).toBeUndefined();
    expect(pickField({}, 'constructor')).toBeUndefined();
  });
});
