import { NO_NETWORKS, isAllowedDestination, isLoopbackAddress, parseNetworkList } from './privateNetworks';

describe('isAllowedDestination', () => {
  it.each([
    '127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '100.127.255.254',
    '0.0.0.0', '224.0.0.1', '255.255.255.255', '::', '::1', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1',
    '64:ff9b::a00:1', 'not-an-address', 'localhost', '',
  ])('refuses %s', (address) => {
    expect(isAllowedDestination(address, NO_NETWORKS)).toBe(false);
  });

  it.each(['93.184.216.34', '8.8.8.8', '100.128.0.1', '172.32.0.1', '2606:2800:220:1:248:1893:25c8:1946', '::ffff:8.8.8.8'])('allows the public address %s', (address) => {
    expect(isAllowedDestination(address, NO_NETWORKS)).toBe(true);
  });

  it('allows private addresses the operator lists, and only those', () => {
    const list = parseNetworkList('127.0.0.1/32, 10.0.0.0/8 ,fd00::/8')!;
    expect(list.entries).toEqual(['127.0.0.1/32', '10.0.0.0/8', 'fd00::/8']);
    expect(['127.0.0.1', '::ffff:127.0.0.1', '10.200.0.1', 'fd00::5'].map((a) => isAllowedDestination(a, list))).toEqual([true, true, true, true]);
    expect(['127.0.0.2', '192.168.0.1', 'fe80::1', '::1'].map((a) => isAllowedDestination(a, list))).toEqual([false, false, false, false]);
    expect(isAllowedDestination('::1', parseNetworkList('::1')!)).toBe(true);
  });
});

describe('parseNetworkList', () => {
  it.each(['10.0.0.0/33', 'fd00::/129', 'example.com', '10.0.0.0/8/1', '10.0.0/8', '10.0.0.0/x'])('refuses %s', (text) => {
    expect(parseNetworkList(text)).toBeUndefined();
  });
  it('takes an empty list as no networks', () => {
    expect(parseNetworkList('')!.entries).toEqual([]);
  });
});

describe('isLoopbackAddress', () => {
  it('knows the loopback addresses of both families', () => {
    expect(['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1'].map(isLoopbackAddress)).toEqual([true, true, true, true]);
    expect(['10.0.0.1', '::2', 'localhost'].map(isLoopbackAddress)).toEqual([false, false, false]);
  });
});
