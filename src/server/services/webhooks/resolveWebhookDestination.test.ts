import { NO_NETWORKS, parseNetworkList } from '../../core/privateNetworks';
import { resolveWebhookDestination, type AddressLookup } from './resolveWebhookDestination';

const strict = { allowInsecure: false, allowPrivateNetworks: NO_NETWORKS };
const answers = (table: Record<string, string[]>): AddressLookup => async (host) => {
  const found = table[host];
  if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};
const dns = answers({ 'hooks.example.com': ['93.184.216.34'], 'mixed.example.com': ['93.184.216.34', '10.0.0.7'], 'inside.example.com': ['192.168.1.10'], localhost: ['127.0.0.1'], 'sixtofour.example.com': ['2002:a00:1::1'], 'docs.example.com': ['2001:db8::7'] });

describe('resolveWebhookDestination', () => {
  it('takes an https URL whose host resolves to public addresses, pinned to the address it checked', async () => {
    expect(await resolveWebhookDestination('https://hooks.example.com/in', strict, dns)).toEqual({ ok: true, address: '93.184.216.34', family: 4 });
    expect(await resolveWebhookDestination('https://[2606:2800:220:1::1]/in', strict, dns)).toEqual({ ok: true, address: '2606:2800:220:1::1', family: 6 });
  });

  it.each([
    ['http://hooks.example.com/in', /https/],
    ['ftp://hooks.example.com/in', /https/],
    ['not a url', /absolute URL/],
    ['https://user:pass@hooks.example.com/in', /user name or password/],
    ['https://nowhere.example.com/in', /does not resolve/],
    ['https://inside.example.com/in', /private/],
    ['https://mixed.example.com/in', /private/],
    ['https://127.0.0.1/in', /private/],
    ['https://[::1]/in', /private/],
    ['https://169.254.169.254/latest/meta-data', /private/],
    ['https://[::ffff:10.0.0.1]/in', /private/],
    ['https://localhost/in', /private/],
    ['https://[::127.0.0.1]/in', /private/],
    ['https://[::ffff:0:127.0.0.1]/in', /private/],
    ['https://[64:ff9b:1::a00:1]/in', /private/],
    ['https://[100::1]/in', /private/],
    ['https://203.0.113.9/in', /private/],
    ['https://sixtofour.example.com/in', /private/],
    ['https://docs.example.com/in', /private/],
  ])('refuses %s', async (url, reason) => {
    const result = await resolveWebhookDestination(url, strict, dns);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(reason);
  });

  it('takes plain http only to loopback, only with WEBHOOK_ALLOW_INSECURE, and loopback only when allowed as a private network', async () => {
    const loopback = parseNetworkList('127.0.0.0/8')!;
    expect((await resolveWebhookDestination('http://127.0.0.1:8080/in', { allowInsecure: true, allowPrivateNetworks: NO_NETWORKS }, dns)).ok).toBe(false);
    expect(await resolveWebhookDestination('http://127.0.0.1:8080/in', { allowInsecure: true, allowPrivateNetworks: loopback }, dns)).toEqual({ ok: true, address: '127.0.0.1', family: 4 });
    expect(await resolveWebhookDestination('http://localhost:8080/in', { allowInsecure: true, allowPrivateNetworks: loopback }, dns)).toEqual({ ok: true, address: '127.0.0.1', family: 4 });
    expect((await resolveWebhookDestination('http://127.0.0.1:8080/in', { allowInsecure: false, allowPrivateNetworks: loopback }, dns)).ok).toBe(false);
    expect((await resolveWebhookDestination('http://hooks.example.com/in', { allowInsecure: true, allowPrivateNetworks: loopback }, dns)).ok).toBe(false);
  });
});
