import { incomingTraceTrust, mayContinueTrace, setIncomingTraceTrust, trustTraceContextOf } from './incomingTraceTrust';

describe('incomingTraceTrust', () => {
  afterEach(() => setIncomingTraceTrust('secret-key'));

  it('by default continues only the requests marked as holding a secret key', () => {
    expect(incomingTraceTrust()).toBe('secret-key');
    const host = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', apisecret: 'x' };
    const browser = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00' };
    trustTraceContextOf(host);
    expect(mayContinueTrace(host)).toBe(true);
    expect(mayContinueTrace(browser)).toBe(false);
    expect(mayContinueTrace(undefined)).toBe(false);
    expect(mayContinueTrace('traceparent')).toBe(false);
  });

  it('continues every request with `all`, and none with `none`', () => {
    const host = {};
    trustTraceContextOf(host);
    setIncomingTraceTrust('all');
    expect(mayContinueTrace({})).toBe(true);
    setIncomingTraceTrust('none');
    expect(mayContinueTrace(host)).toBe(false);
  });
});
