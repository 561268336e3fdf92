import { AppError } from './app-error';
import { EdgeAwareRequest, isCleanPath, pathEncodingMiddleware, refuseUnstorable, refuseUnstorableParams } from './edge-input';

const messageOf = (fn: () => void): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return (e as AppError).message;
  }
};

describe('refuseUnstorable', () => {
  it('accepts ordinary values of any shape', () => {
    for (const v of ['text', 'ü😀', 1, true, null, undefined, [1, 'a'], { a: { b: ['c'] } }]) expect(messageOf(() => refuseUnstorable('F', v))).toBeUndefined();
  });

  it('refuses a NUL anywhere, naming the field and where inside it', () => {
    expect(messageOf(() => refuseUnstorable('REASON', 'a\u0000'))).toBe('REASON contains a NUL character');
    expect(messageOf(() => refuseUnstorable('ACCOUNTLIST', [{ PASSWORD: 'x' }, { NOTES: '\u0000' }]))).toBe('ACCOUNTLIST[1].NOTES contains a NUL character');
    expect(messageOf(() => refuseUnstorable('X', { 'a\u0000': 1 }))).toBe('X has a key with a NUL character');
  });

  it('refuses keys that reach a prototype, and absurd nesting', () => {
    expect(messageOf(() => refuseUnstorable('keyName', { constructor: 1 }))).toBe('keyName must not contain the key constructor');
    expect(messageOf(() => refuseUnstorable('k', JSON.parse('{"a":{"__proto__":{"x":1}}}')))).toBe('k.a must not contain the key __proto__');
    let deep: unknown = 'x';
    for (let i = 0; i < 40; i++) deep = [deep];
    expect(messageOf(() => refuseUnstorable('D', deep))).toBe('D[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0] is nested too deeply');
  });
});

describe('path encoding at the edge', () => {
  const run = (url: string): EdgeAwareRequest => {
    const req = { url } as EdgeAwareRequest;
    pathEncodingMiddleware(req, {} as never, () => undefined);
    return req;
  };

  it('leaves well-formed paths alone', () => {
    expect(run('/a/b%20c?x=%zz').url).toBe('/a/b%20c?x=%zz');
    expect(run('/a/b%20c').malformedSegments).toBeUndefined();
  });

  it('makes a malformed segment literal so routing still matches, and remembers it', () => {
    const req = run('/r/1/accounts/%uFFFF/password?q=1');
    expect(req.url).toBe('/r/1/accounts/%25uFFFF/password?q=1');
    expect(req.malformedSegments).toEqual(['%uFFFF']);
    req.params = { rid: '1', aid: '%uFFFF' };
    expect(messageOf(() => refuseUnstorableParams(req))).toBe('Invalid account id: malformed percent-encoding');
  });

  it('refuses a NUL in a decoded parameter by name', () => {
    const req = { params: { name: 'a\u0000' } } as unknown as EdgeAwareRequest;
    expect(messageOf(() => refuseUnstorableParams(req))).toBe('Invalid resource name: contains a NUL character');
  });

  it('tells the lean routes which paths to leave to the checked pipeline', () => {
    expect(isCleanPath('/restapi/json/v1/resources/1/accounts/2/password')).toBe(true);
    expect(isCleanPath('/r/%41')).toBe(true);
    expect(isCleanPath('/r/%00')).toBe(false);
    expect(isCleanPath('/r/%C3%28')).toBe(false);
  });
});
