import { consolePathOf, normalisedPath } from './consolePathOf';

describe('consolePathOf', () => {
  it('keeps a console path and sends anything else home', () => {
    expect(consolePathOf('/console', '/console/apps/shop/users?after=x')).toBe('/console/apps/shop/users?after=x');
    expect(consolePathOf('/console', '/console/apps/shop/users/a%20b')).toBe('/console/apps/shop/users/a%20b');
    for (const value of ['https://evil.example/', '//evil.example', '/console//evil.example', '/console/\\evil', '/console/a b', '/elsewhere', '/console', undefined, ['/console/apps']]) {
      expect(consolePathOf('/console', value)).toBe('/console/apps');
    }
  });

  it('sends a path that leaves the console once resolved home', () => {
    for (const value of ['/console/../admin/apps', '/console/%2e%2e/admin', '/console/.%2E/x', '/console/apps/./x', '/console/%2E%2e?next=/console/apps']) {
      expect(consolePathOf('/console', value)).toBe('/console/apps');
    }
  });
});

describe('normalisedPath', () => {
  it('resolves dot segments, encoded or not, backslashes and runs of slashes as a browser does', () => {
    expect(normalisedPath('/console/../admin/apps')).toBe('/admin/apps');
    expect(normalisedPath('/console/%2e%2e/%2E%2E/health')).toBe('/health');
    expect(normalisedPath('/console/..\\..\\x')).toBe('/x');
    expect(normalisedPath('//console///apps')).toBe('/console/apps');
    expect(normalisedPath('/x/../console/apps')).toBe('/console/apps');
    expect(normalisedPath('/console/apps')).toBe('/console/apps');
  });
});
