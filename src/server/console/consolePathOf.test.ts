import { consolePathOf } from './consolePathOf';

describe('consolePathOf', () => {
  it('keeps a console path and sends anything else home', () => {
    expect(consolePathOf('/console', '/console/apps/shop/users?after=x')).toBe('/console/apps/shop/users?after=x');
    for (const value of ['https://evil.example/', '//evil.example', '/console//evil.example', '/console/\\evil', '/console/a b', '/elsewhere', '/console', undefined, ['/console/apps']]) {
      expect(consolePathOf('/console', value)).toBe('/console/apps');
    }
  });
});
