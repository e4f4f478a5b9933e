import { withoutQueries } from './withoutQueries';

describe('withoutQueries', () => {
  it('cuts the query off every URL attribute and empties url.query', () => {
    expect(
      withoutQueries({
        'http.target': '/apps/delete/cancel?nonce=s3cret',
        'http.url': 'http://127.0.0.1:7001/x?token=abc',
        'url.full': 'https://hooks.example/in?key=k',
        'url.query': 'key=k',
        'http.method': 'GET',
      }),
    ).toEqual({ 'http.target': '/apps/delete/cancel', 'http.url': 'http://127.0.0.1:7001/x', 'url.full': 'https://hooks.example/in', 'url.query': '' });
  });

  it('changes nothing without a query', () => {
    expect(withoutQueries({ 'http.target': '/signin/verify', 'url.full': 'http://a/b' })).toEqual({});
    expect(withoutQueries(undefined)).toEqual({});
  });
});
