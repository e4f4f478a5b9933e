import { serverSpanRoute } from './serverSpanRoute';

describe('serverSpanRoute', () => {
  it('names the span after the matched route declaration, with http.route', () => {
    expect(serverSpanRoute({ method: 'POST', originalUrl: '/api/signin/verify', route: { path: '/signin/verify' } }, { 'url.path': '/api/signin/verify' })).toEqual({
      name: 'POST /signin/verify',
      attributes: { 'http.route': '/signin/verify' },
    });
    expect(serverSpanRoute({ method: 'GET', originalUrl: '/admin/apps/shop/available', route: { path: '/admin/apps/:appId/available' } }, {})).toEqual({
      name: 'GET /admin/apps/:appId/available',
      attributes: { 'http.route': '/admin/apps/:appId/available' },
    });
  });

  it('leaves the name and path of a request no route took', () => {
    expect(serverSpanRoute({ method: 'GET', originalUrl: '/nope' }, { 'url.path': '/nope' })).toEqual({ attributes: {} });
  });

  it("records a console request's template in place of its path, in every URL attribute", () => {
    const attributes = {
      'url.path': '/console/apps/shop/users/alice%40example.com',
      'http.target': '/console/apps/shop/users/alice%40example.com',
      'url.full': 'http://127.0.0.1:7001/console/apps/shop/users/alice%40example.com',
      'http.url': 'http://127.0.0.1:7001/console/apps/shop/users/alice%40example.com',
    };
    expect(serverSpanRoute({ method: 'GET', originalUrl: '/console/apps/shop/users/alice%40example.com?tab=1', route: { path: '/console/apps/:appId/users/:userId' } }, attributes)).toEqual({
      name: 'GET /console/apps/:appId/users/:userId',
      attributes: {
        'http.route': '/console/apps/:appId/users/:userId',
        'url.path': '/console/apps/:appId/users/:userId',
        'http.target': '/console/apps/:appId/users/:userId',
        'url.full': 'http://127.0.0.1:7001/console/apps/:appId/users/:userId',
        'http.url': 'http://127.0.0.1:7001/console/apps/:appId/users/:userId',
      },
    });
    expect(serverSpanRoute({ method: 'GET', originalUrl: '/console/apps/shop/users/alice%40example.com' }, { 'url.path': attributes['url.path'] })).toEqual({ attributes: { 'url.path': '/console/*' } });
  });
});
