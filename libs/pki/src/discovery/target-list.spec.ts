import { DiscoveryError } from './errors';
import { parseTargetList } from './target-list';

describe('parseTargetList', () => {
  it('reads host [port] lines, skipping blanks and comments', () => {
    const text = ['# inventory', 'web.example.com', '', '10.0.0.5 8443   # admin console', 'mail.example.com:993', '[::1]:4443', '::1 8443', '\r'].join('\r\n');
    expect(parseTargetList(text)).toEqual([
      { host: 'web.example.com', port: 443 },
      { host: '10.0.0.5', port: 8443 },
      { host: 'mail.example.com', port: 993 },
      { host: '::1', port: 4443 },
      { host: '::1', port: 8443 },
    ]);
  });

  it('uses the given default port', () => {
    expect(parseTargetList('a.example\nb.example 25', 636)).toEqual([
      { host: 'a.example', port: 636 },
      { host: 'b.example', port: 25 },
    ]);
  });

  it('reports every bad line with its number', () => {
    const text = 'good.example\n300.1.1.1\nhost.example 99999\n\na b c\nx.example:1 2';
    expect(() => parseTargetList(text)).toThrow(
      new DiscoveryError(
        'Invalid target list: line 2: Invalid IP address: 300.1.1.1; line 3: Invalid port: 99999 (expected 1-65535); ' +
          'line 5: Expected "host [port]", got "a b c"; line 6: Port given twice in "x.example:1 2"',
      ),
    );
  });

  it('refuses empty and oversized lists', () => {
    expect(() => parseTargetList('# nothing\n\n')).toThrow('Target list is empty');
    expect(() => parseTargetList('a.example\nb.example\nc.example', 443, 2)).toThrow('Too many targets: 3 (maximum 2)');
  });
});
