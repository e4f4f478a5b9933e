import { NO_NETWORKS, isAllowedDestination, isGlobalUnicast, isLoopbackAddress, parseNetworkList } from './privateNetworks';

describe('isAllowedDestination', () => {
  it.each([
    '127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '100.127.255.254',
    '0.0.0.0', '224.0.0.1', '255.255.255.255', '::', '::1', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1',
    '64:ff9b::a00:1', 'not-an-address', 'localhost', '',
  ])('refuses %s', (address) => {
    expect(isAllowedDestination(address, NO_NETWORKS)).toBe(false);
  });

  it.each(['93.184.216.34', '8.8.8.8', '100.128.0.1', '172.32.0.1', '2606:2800:220:1:248:1893:25c8:1946', '::ffff:8.8.8.8', '::ffff:808:808', '2a00:1450:4001:81c::200e', '2001:200::1', '2003::1', '3ffe:ffff::1'])(
    'allows the global unicast address %s',
    (address) => {
      expect(isAllowedDestination(address, NO_NETWORKS)).toBe(true);
    },
  );

  // Forms an earlier deny list missed: each embeds an IPv4 address, or is no global unicast.
  it.each([
    ['::127.0.0.1', 'IPv4-compatible, loopback'],
    ['::7f00:1', 'IPv4-compatible, loopback, as a URL writes it'],
    ['::8.8.8.8', 'IPv4-compatible, even of a public address'],
    ['::ffff:0:7f00:1', 'SIIT (IPv4-translated), loopback'],
    ['::ffff:0:808:808', 'SIIT of a public address'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback in hex'],
    ['64:ff9b::808:808', 'NAT64 well-known prefix'],
    ['64:ff9b:1::a00:1', 'NAT64 local use'],
    ['64:ff9b:1:ffff::8.8.8.8', 'NAT64 local use, a public address embedded'],
    ['2002:7f00:1::1', '6to4 of 127.0.0.1'],
    ['2002:808:808::1', '6to4 of a public address'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['2001::1', 'Teredo prefix'],
    ['2001:2::1', 'benchmarking'],
    ['2001:20::1', 'ORCHIDv2'],
    ['100::1', 'discard-only'],
    ['100::ffff:ffff:ffff:ffff', 'discard-only, its last address'],
    ['2001:db8::1', 'documentation'],
    ['2001:db8:ffff::1', 'documentation'],
    ['3fff::1', 'documentation (RFC 9637)'],
    ['192.0.2.1', 'documentation TEST-NET-1'],
    ['198.51.100.7', 'documentation TEST-NET-2'],
    ['203.0.113.9', 'documentation TEST-NET-3'],
    ['192.88.99.1', '6to4 relay anycast'],
    ['::ffff:192.0.2.1', 'IPv4-mapped documentation address'],
    ['fec0::1', 'site-local'],
    ['4000::1', 'outside 2000::/3'],
  ])('refuses %s (%s)', (address) => {
    expect(isAllowedDestination(address, NO_NETWORKS)).toBe(false);
    expect(isGlobalUnicast(address)).toBe(false);
  });

  it('allows private addresses the operator lists, and only those', () => {
    const list = parseNetworkList('127.0.0.1/32, 10.0.0.0/8 ,fd00::/8')!;
    expect(list.entries).toEqual(['127.0.0.1/32', '10.0.0.0/8', 'fd00::/8']);
    expect(['127.0.0.1', '::ffff:127.0.0.1', '10.200.0.1', 'fd00::5'].map((a) => isAllowedDestination(a, list))).toEqual([true, true, true, true]);
    expect(['127.0.0.2', '192.168.0.1', 'fe80::1', '::1'].map((a) => isAllowedDestination(a, list))).toEqual([false, false, false, false]);
    expect(isAllowedDestination('::1', parseNetworkList('::1')!)).toBe(true);
    // An IPv4 entry covers the IPv4-mapped form of its addresses, not the forms that are refused outright.
    expect(['::ffff:7f00:1', '::7f00:1', '::ffff:0:7f00:1', '2002:7f00:1::1'].map((a) => isAllowedDestination(a, parseNetworkList('127.0.0.1')!))).toEqual([true, false, false, false]);
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
    expect(['127.0.0.1', '127.1.2.3', '::1', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', '::ffff:7f00:1'].map(isLoopbackAddress)).toEqual([true, true, true, true, true, true]);
    expect(['10.0.0.1', '::2', '::7f00:1', '::ffff:0:7f00:1', 'localhost'].map(isLoopbackAddress)).toEqual([false, false, false, false, false]);
  });
});
