import fc from 'fast-check';
import { writeJsonString } from './json-text';

/** writeJsonString must write what JSON.stringify writes, for any text PostgreSQL can hold. */
describe('writeJsonString', () => {
  const written = (text: string) => {
    const data = Buffer.from(text, 'utf8');
    const out = Buffer.alloc(data.length * 6 + 2);
    return out.subarray(0, writeJsonString(out, 0, data, 0, data.length)).toString('utf8');
  };

  it('escapes quotes, backslashes and every control character as JSON.stringify does', () => {
    const nasty = 'a"b\\c\n\r\t\b\f\u0001\u001f\u007f é 😀 \u2028 </script> null';
    expect(written(nasty)).toBe(JSON.stringify(nasty));
    for (let c = 0; c < 0x20; c++) expect(written(String.fromCharCode(c))).toBe(JSON.stringify(String.fromCharCode(c)));
  });

  it('equals JSON.stringify for any well-formed Unicode text without NUL', () => {
    // PostgreSQL text holds neither NUL nor lone surrogates (its UTF-8 cannot encode them).
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), (s) => {
        const text = s.replace(/\u0000/g, '');
        expect(written(text)).toBe(JSON.stringify(text));
      }),
      { numRuns: 2000 },
    );
    fc.assert(fc.property(fc.string({ unit: 'binary-ascii', maxLength: 80 }), (s) => expect(written(s.replace(/\u0000/g, ''))).toBe(JSON.stringify(s.replace(/\u0000/g, '')))));
  });
});
