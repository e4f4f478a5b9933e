import { fillLinkTemplate, linkTemplateProblem } from './linkTemplate';

const TOKEN = 'verify_eyJhIjoxfQ.12.q83v-_';

describe('magic-link templates', () => {
  it.each([
    ['https://shop.example.com/login?token=$TOKEN', 'https://shop.example.com/login?token=verify_eyJhIjoxfQ.12.q83v-_'],
    ['https://shop.example.com/login/$TOKEN', 'https://shop.example.com/login/verify_eyJhIjoxfQ.12.q83v-_'],
    ['https://shop.example.com/#t=$TOKEN', 'https://shop.example.com/#t=verify_eyJhIjoxfQ.12.q83v-_'],
    ['http://localhost:3000/magic?a=$TOKEN&b=$TOKEN', 'http://localhost:3000/magic?a=verify_eyJhIjoxfQ.12.q83v-_&b=verify_eyJhIjoxfQ.12.q83v-_'],
    // Serialised as the parser reads it: the host lower-cased, a quote in the query encoded.
    ['HTTPS://Shop.Example.COM/a?q="x"&t=$TOKEN', 'https://shop.example.com/a?q=%22x%22&t=verify_eyJhIjoxfQ.12.q83v-_'],
  ])('accepts %s and mails %s', (template, link) => {
    expect(linkTemplateProblem(template)).toBeUndefined();
    expect(fillLinkTemplate(template, TOKEN)).toBe(link);
  });

  it.each([
    ['no $TOKEN', 'https://shop.example.com/login', /\$TOKEN/],
    ['a newline', 'https://shop.example.com/?t=$TOKEN\nFrom: bank@example.com', /line breaks/],
    ['a tab', 'https://shop.example.com/\t?t=$TOKEN', /line breaks/],
    ['a carriage return', 'https://shop.example.com/?t=$TOKEN\r', /line breaks/],
    ['a space', 'https://shop.example.com/ login?t=$TOKEN', /spaces/],
    ['a no-break space', 'https://shop.example.com/\u00a0?t=$TOKEN', /spaces/],
    ['a line separator', 'https://shop.example.com/\u2028?t=$TOKEN', /spaces/],
    ['a right-to-left override', 'https://shop.example.com/\u202e?t=$TOKEN', /invisible/],
    ['a zero-width space', 'https://shop.example.com/\u200b?t=$TOKEN', /invisible/],
    ['a NUL', 'https://shop.example.com/\u0000?t=$TOKEN', /control/],
    ['another scheme', 'javascript:alert(1)//$TOKEN', /http/],
    ['a relative URL', '/login?t=$TOKEN', /http/],
    ['credentials', 'https://bank.example.com@evil.example.com/?t=$TOKEN', /user name or password/],
    ['$TOKEN in the host', 'https://$TOKEN.evil.example.com/', /only in the path/],
    ['$TOKEN as the port', 'https://evil.example.com:$TOKEN/', /http/],
  ])('refuses %s', (_what, template, message) => {
    expect(linkTemplateProblem(template)).toMatch(message);
  });
});
