import { recordedConsolePath } from './consolePath';

describe('recordedConsolePath', () => {
  it("records a console request by the template of the route that answered it, never the path's ids", () => {
    expect(recordedConsolePath('/console/apps/shop/users/alice%40example.com', '/console/apps/:appId/users/:userId')).toBe('/console/apps/:appId/users/:userId');
    expect(recordedConsolePath('//console//apps/shop/users/alice%40example.com', '/console/apps/:appId/users/:userId')).toBe('/console/apps/:appId/users/:userId');
    expect(recordedConsolePath('/console', '/console')).toBe('/console');
  });

  it('records /console/* when no console route answered', () => {
    expect(recordedConsolePath('/console/apps/shop/users/alice%40example.com', undefined)).toBe('/console/*');
    expect(recordedConsolePath('/console/apps/shop/users/alice%40example.com', '/signin/verify')).toBe('/console/*');
    expect(recordedConsolePath('/console/x', /regexp/)).toBe('/console/*');
  });

  it('leaves every other path alone', () => {
    expect(recordedConsolePath('/signin/verify', '/signin/verify')).toBeUndefined();
    expect(recordedConsolePath('/consoles/x', undefined)).toBeUndefined();
    expect(recordedConsolePath('/api/console/x', undefined)).toBeUndefined();
  });
});
