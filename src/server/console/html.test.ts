import { html } from './html';

describe('html', () => {
  it('escapes every interpolated text, in elements and in quoted attributes', () => {
    const alias = `"><script>alert(1)</script>`;
    expect(html`<p title="${alias}">${alias}</p>`.markup).toBe('<p title="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;">&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;</p>');
  });

  it('keeps nested markup, joins lists, and renders nothing for null, undefined and booleans', () => {
    const items = ['a<b', 'c'].map((v) => html`<li>${v}</li>`);
    expect(html`<ul>${items}</ul>${null}${undefined}${false}${true}${0}`.markup).toBe('<ul><li>a&lt;b</li><li>c</li></ul>0');
  });
});
