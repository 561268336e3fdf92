import { escapeHtml, html } from './html';

describe('console markup', () => {
  it('escapes every interpolated value, in text and in attributes', () => {
    const name = `<img src=x onerror=alert(1)>`;
    const account = `"><script>alert(2)</script>`;
    expect(html`<td>${name}</td><a title="${account}">x</a>`.text).toBe(
      '<td>&lt;img src=x onerror=alert(1)&gt;</td><a title="&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;">x</a>',
    );
    expect(escapeHtml("`'&")).toBe('&#96;&#39;&amp;');
  });

  it('keeps markup it made itself, and lists of it; leaves out undefined, null and false', () => {
    const rows = ['a<', 'b'].map((v) => html`<li>${v}</li>`);
    expect(html`<ul>${rows}</ul>${undefined}${null}${false}${0}`.text).toBe('<ul><li>a&lt;</li><li>b</li></ul>0');
  });
});
