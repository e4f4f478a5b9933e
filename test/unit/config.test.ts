import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/server/core/config';
import { NO_NETWORKS } from '../../src/server/core/privateNetworks';
import { GLOBALSIGN_ROOT_CA_R3, GLOBALSIGN_ROOT_R46 } from '../../src/server/webauthn/metadata/fidoRootCertificates';

/** The error loadConfig throws for this environment (fails the test if it does not throw). */
function configErrorFor(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  it('has the documented defaults for an empty environment', () => {
    expect(loadConfig({})).toEqual({
      port: 7001,
      host: '127.0.0.1',
      databaseUrl: 'file:./data/passwordless.db',
      managementKey: undefined,
      managementListener: undefined,
      publicUrl: 'http://localhost:7001',
      smtpUrl: undefined,
      mailFrom: { name: '', address: 'passwordless@localhost' },
      mailFile: './data/mail.md',
      redisUrl: undefined,
      magicLinkMonthlyQuota: 1000,
      magicLinkNewAppPeriodSeconds: 86_400,
      sdkCompatibleLists: false,
      logLevel: 'info',
      shutdownTimeoutMs: 10_000,
      trustProxy: false,
      trustIncomingTrace: 'secret-key',
      rateLimits: {
        enabled: true,
        windowMs: 60_000,
        publicPerIp: 600,
        publicPerApp: 12_000,
        privatePerIp: 12_000,
        privatePerApp: 12_000,
        webhookSendsPerApp: 10,
        authFailuresPerIp: 60,
        authFailuresPerApp: 600,
        managementFailuresPerIp: 10,
      },
      redisKeyPrefix: 'passwordless:',
      metricsToken: undefined,
      ceremonyTimeoutMs: 60_000,
      aaguidNamesFile: undefined,
      mdsBlobFile: undefined,
      mdsUrl: undefined,
      mdsTrustedRoots: [],
      tokenKeyEncryption: { current: undefined, previous: [] },
      webhooks: { allowInsecure: false, allowPrivateNetworks: NO_NETWORKS },
      webhookWorker: true,
      webhookDelivery: { timeoutMs: 15_000, leaseMs: 15_000, outboxQuota: 100_000 },
      console: { enabled: true, idleMs: 1_800_000 },
    });
  });

  it('derives PUBLIC_URL from PORT when it is not set', () => {
    expect(loadConfig({ PORT: '8080' }).publicUrl).toBe('http://localhost:8080');
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '443',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgresql://user:pw@db:5432/passwordless',
      MANAGEMENT_KEY: 'a-management-key-long-enough-for-128-bits',
      PUBLIC_URL: 'https://auth.example.com/',
      SMTP_URL: 'smtps://user:pass@mail.example.com:465',
      MAIL_FROM: 'Passkeys <noreply@example.com>',
      MAIL_FILE: '/var/mail/out.md',
      REDIS_URL: 'redis://cache:6379',
      MAGIC_LINK_MONTHLY_QUOTA: '25',
      MAGIC_LINK_NEW_APP_PERIOD: '2.12:00:00',
      SDK_COMPATIBLE_LISTS: 'true',
      LOG_LEVEL: 'warn',
      SHUTDOWN_TIMEOUT_MS: '2500',
      TRUST_PROXY: '2',
      TRUST_INCOMING_TRACE: 'all',
      RATE_LIMITS: 'off',
      RATE_LIMIT_WINDOW_SECONDS: '300',
      RATE_LIMIT_PUBLIC_PER_IP: '1',
      RATE_LIMIT_PUBLIC_PER_APP: '2',
      RATE_LIMIT_PRIVATE_PER_IP: '3',
      RATE_LIMIT_PRIVATE_PER_APP: '4',
      RATE_LIMIT_WEBHOOK_SENDS_PER_APP: '7',
      RATE_LIMIT_AUTH_FAILURES_PER_IP: '5',
      RATE_LIMIT_AUTH_FAILURES_PER_APP: '0',
      RATE_LIMIT_MANAGEMENT_FAILURES_PER_IP: '6',
      REDIS_KEY_PREFIX: 'pwl-eu:',
      METRICS_TOKEN: 'a-metrics-token-long-enough',
      CEREMONY_TIMEOUT_SECONDS: '120',
      AAGUID_NAMES_FILE: '/etc/passwordless/aaguids.json',
      MDS_BLOB_FILE: '/srv/mds/blob.jwt',
      MDS_URL: 'https://mds3.fidoalliance.org/',
      MANAGEMENT_HOST: '::1',
      MANAGEMENT_PORT: '7002',
      TOKEN_KEY_ENCRYPTION_KEY: '11'.repeat(32),
      TOKEN_KEY_ENCRYPTION_KEY_PREVIOUS: Buffer.alloc(32, 2).toString('base64url'),
      WEBHOOK_ALLOW_INSECURE: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: '10.0.0.0/8, 127.0.0.1',
      WEBHOOK_WORKER: 'false',
      WEBHOOK_TIMEOUT_SECONDS: '30',
      WEBHOOK_LEASE_SECONDS: '20',
      WEBHOOK_OUTBOX_QUOTA: '5000',
    });
    expect(config).toEqual({
      port: 443,
      host: '0.0.0.0',
      databaseUrl: 'postgresql://user:pw@db:5432/passwordless',
      managementKey: 'a-management-key-long-enough-for-128-bits',
      managementListener: { host: '::1', port: 7002 },
      publicUrl: 'https://auth.example.com',
      smtpUrl: 'smtps://user:pass@mail.example.com:465',
      mailFrom: { name: 'Passkeys', address: 'noreply@example.com' },
      mailFile: '/var/mail/out.md',
      redisUrl: 'redis://cache:6379',
      magicLinkMonthlyQuota: 25,
      magicLinkNewAppPeriodSeconds: 216_000,
      sdkCompatibleLists: true,
      logLevel: 'warn',
      shutdownTimeoutMs: 2500,
      trustProxy: 2,
      trustIncomingTrace: 'all',
      rateLimits: {
        enabled: false,
        windowMs: 300_000,
        publicPerIp: 1,
        publicPerApp: 2,
        privatePerIp: 3,
        privatePerApp: 4,
        webhookSendsPerApp: 7,
        authFailuresPerIp: 5,
        authFailuresPerApp: 0,
        managementFailuresPerIp: 6,
      },
      redisKeyPrefix: 'pwl-eu:',
      metricsToken: 'a-metrics-token-long-enough',
      tokenKeyEncryption: {
        current: { id: expect.stringMatching(/^[0-9a-f]{8}$/), key: Buffer.alloc(32, 0x11) },
        previous: [{ id: expect.stringMatching(/^[0-9a-f]{8}$/), key: Buffer.alloc(32, 2) }],
      },
      ceremonyTimeoutMs: 120_000,
      aaguidNamesFile: '/etc/passwordless/aaguids.json',
      mdsBlobFile: '/srv/mds/blob.jwt',
      mdsUrl: 'https://mds3.fidoalliance.org/',
      mdsTrustedRoots: [],
      webhooks: { allowInsecure: true, allowPrivateNetworks: expect.objectContaining({ entries: ['10.0.0.0/8', '127.0.0.1'] }) },
      webhookWorker: false,
      webhookDelivery: { timeoutMs: 30_000, leaseMs: 20_000, outboxQuota: 5000 },
      console: { enabled: false, idleMs: 1_800_000 },
    });
    expect(config.webhooks.allowPrivateNetworks.covers('10.1.2.3')).toBe(true);
    expect(config.webhooks.allowPrivateNetworks.covers('192.168.0.1')).toBe(false);
  });

  it('turns the console on by default only when PUBLIC_URL and HOST are both this machine, and reads CONSOLE and CONSOLE_IDLE_MINUTES', () => {
    expect(loadConfig({ HOST: '127.0.0.1' }).console.enabled).toBe(true);
    expect(loadConfig({ HOST: '::1', PUBLIC_URL: 'http://[::1]:7001' }).console.enabled).toBe(true);
    expect(loadConfig({ HOST: '127.0.0.1', PUBLIC_URL: 'http://127.0.0.1:7001' }).console.enabled).toBe(true);
    // A proxy on this machine forwarding a public name to a loopback listener: the console is not public unless asked for.
    expect(loadConfig({ HOST: '127.0.0.1', PUBLIC_URL: 'https://auth.example.com' }).console.enabled).toBe(false);
    expect(loadConfig({ HOST: '127.0.0.1', PUBLIC_URL: 'http://localhost.example.com' }).console.enabled).toBe(false);
    // Listening on every address with PUBLIC_URL left at its default (localhost).
    expect(loadConfig({ HOST: '0.0.0.0' }).console.enabled).toBe(false);
    expect(loadConfig({ HOST: '10.0.0.5' }).console.enabled).toBe(false);
    expect(loadConfig({ HOST: '0.0.0.0', CONSOLE: 'on' }).console.enabled).toBe(true);
    expect(loadConfig({ HOST: '127.0.0.1', PUBLIC_URL: 'https://auth.example.com', CONSOLE: 'on' }).console.enabled).toBe(true);
    expect(loadConfig({ CONSOLE: 'off' }).console.enabled).toBe(false);
    expect(loadConfig({ CONSOLE_IDLE_MINUTES: '5' }).console.idleMs).toBe(300_000);
    expect(configErrorFor({ CONSOLE: 'yes please' }).message).toMatch(/^Invalid configuration: CONSOLE must be on or off/);
    expect(configErrorFor({ CONSOLE_IDLE_MINUTES: '0' }).message).toMatch(/^Invalid configuration: CONSOLE_IDLE_MINUTES /);
  });

  it('refuses a WEBHOOK_ALLOW_PRIVATE_NETWORKS entry that is neither an address nor a network, naming the variable', () => {
    expect(configErrorFor({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: '10.0.0.0/8,intranet' }).message).toMatch(/^Invalid configuration: WEBHOOK_ALLOW_PRIVATE_NETWORKS /);
    expect(configErrorFor({ WEBHOOK_ALLOW_INSECURE: 'maybe' }).message).toMatch(/^Invalid configuration: WEBHOOK_ALLOW_INSECURE /);
  });

  it('refuses a webhook timeout or lease out of range, naming the variable', () => {
    for (const value of ['0', '121', '15s', '-1']) expect(configErrorFor({ WEBHOOK_TIMEOUT_SECONDS: value }).message).toMatch(/^Invalid configuration: WEBHOOK_TIMEOUT_SECONDS /);
    for (const value of ['4', '601', 'soon']) expect(configErrorFor({ WEBHOOK_LEASE_SECONDS: value }).message).toMatch(/^Invalid configuration: WEBHOOK_LEASE_SECONDS /);
    for (const value of ['0', 'lots', '1e6']) expect(configErrorFor({ WEBHOOK_OUTBOX_QUOTA: value }).message).toMatch(/^Invalid configuration: WEBHOOK_OUTBOX_QUOTA /);
  });

  describe('FIDO metadata', () => {
    const dir = join(__dirname, '..', '..', '.test-tmp', `config-${process.pid}`);
    beforeAll(() => mkdirSync(dir, { recursive: true }));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const file = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    };

    it('keeps a download in ./data/mds.jwt when MDS_URL is set without MDS_BLOB_FILE', () => {
      expect(loadConfig({ MDS_URL: 'http://127.0.0.1:8080/mds' })).toMatchObject({ mdsUrl: 'http://127.0.0.1:8080/mds', mdsBlobFile: './data/mds.jwt' });
    });

    it('reads every certificate of MDS_TRUSTED_ROOTS_FILE, whatever text surrounds them', () => {
      const roots = file('roots.pem', `# our own metadata root\n${GLOBALSIGN_ROOT_CA_R3}\nsome note\n${GLOBALSIGN_ROOT_R46}`);
      expect(loadConfig({ MDS_TRUSTED_ROOTS_FILE: roots }).mdsTrustedRoots.map((pem) => pem.trim())).toEqual([GLOBALSIGN_ROOT_CA_R3.trim(), GLOBALSIGN_ROOT_R46.trim()]);
    });

    it.each([
      ['a file that does not exist', () => join(dir, 'missing.pem'), 'cannot be read (ENOENT)'],
      ['a file without a certificate', () => file('empty.pem', 'no certificates here'), 'holds no PEM certificate (-----BEGIN CERTIFICATE-----)'],
      ['a certificate that does not parse', () => file('broken.pem', `${GLOBALSIGN_ROOT_CA_R3}\n-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n`), 'certificate 2 cannot be parsed'],
    ])('stops at MDS_TRUSTED_ROOTS_FILE naming %s', (_what, path, message) => {
      expect(configErrorFor({ MDS_TRUSTED_ROOTS_FILE: path() }).message).toBe(`Invalid configuration: MDS_TRUSTED_ROOTS_FILE ${message}`);
    });
  });

  it.each(['file:/tmp/x.db', 'postgres://localhost/db', 'postgresql://localhost/db'])('accepts DATABASE_URL %s', (url) => {
    expect(loadConfig({ DATABASE_URL: url }).databaseUrl).toBe(url);
  });

  it('lets SHUTDOWN_TIMEOUT_MS be 0: connections still open at shutdown are cut at once', () => {
    expect(loadConfig({ SHUTDOWN_TIMEOUT_MS: '0' }).shutdownTimeoutMs).toBe(0);
  });

  it('turns the new-app rule for magic links off with a zero period', () => {
    expect(loadConfig({ MAGIC_LINK_NEW_APP_PERIOD: '00:00:00' }).magicLinkNewAppPeriodSeconds).toBe(0);
  });

  it.each([
    ['true', true],
    ['false', false],
    ['1', 1],
    ['loopback', ['loopback']],
    ['10.0.0.0/8, 192.168.1.7,fd00::/8, uniquelocal', ['10.0.0.0/8', '192.168.1.7', 'fd00::/8', 'uniquelocal']],
  ])('reads TRUST_PROXY=%s as Express takes it', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  it('treats empty variables as unset', () => {
    const empty = { PORT: '', HOST: '', DATABASE_URL: '', MANAGEMENT_KEY: '', PUBLIC_URL: '', SMTP_URL: '', MAIL_FROM: '', MAIL_FILE: '', REDIS_URL: '', MAGIC_LINK_MONTHLY_QUOTA: '', MAGIC_LINK_NEW_APP_PERIOD: '', SDK_COMPATIBLE_LISTS: '', SHUTDOWN_TIMEOUT_MS: '' };
    expect(loadConfig(empty)).toEqual(loadConfig({}));
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '0'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['PORT', '80.5'],
    ['DATABASE_URL', 'mysql://x'],
    ['DATABASE_URL', './data/passwordless.db'],
    ['PUBLIC_URL', 'ftp://x'],
    ['PUBLIC_URL', 'not a url'],
    ['SMTP_URL', 'http://x'],
    ['MAIL_FROM', 'nope'],
    ['REDIS_URL', 'http://x'],
    ['CEREMONY_TIMEOUT_SECONDS', '4'],
    ['CEREMONY_TIMEOUT_SECONDS', '601'],
    ['CEREMONY_TIMEOUT_SECONDS', '1m'],
    ['MANAGEMENT_KEY', 'too-short-key'],
    ['MANAGEMENT_KEY', 'sixteen-chars-ok'],
    ['MANAGEMENT_KEY', 'x'.repeat(31)],
    ['MANAGEMENT_PORT', '65536'],
    ['MANAGEMENT_PORT', '7001'],
    ['MANAGEMENT_HOST', '127.0.0.1'],
    ['MAIL_FROM', 'a@example.com, b@example.com'],
    ['MAIL_FROM', 'Passkeys <noreply@example.com>\r\nBcc: x@example.com'],
    ['TOKEN_KEY_ENCRYPTION_KEY', 'a passphrase is not a key'],
    ['TOKEN_KEY_ENCRYPTION_KEY', '00'.repeat(16)],
    ['TOKEN_KEY_ENCRYPTION_KEY_PREVIOUS', 'short'],
    ['RATE_LIMIT_MANAGEMENT_FAILURES_PER_IP', 'lots'],
    ['MAGIC_LINK_MONTHLY_QUOTA', '-1'],
    ['MAGIC_LINK_MONTHLY_QUOTA', 'lots'],
    ['MAGIC_LINK_MONTHLY_QUOTA', '3000000000'],
    ['MAGIC_LINK_NEW_APP_PERIOD', '24h'],
    ['MAGIC_LINK_NEW_APP_PERIOD', '25:00:00'],
    ['SDK_COMPATIBLE_LISTS', 'maybe'],
    ['LOG_LEVEL', 'loud'],
    ['SHUTDOWN_TIMEOUT_MS', '10s'],
    ['SHUTDOWN_TIMEOUT_MS', '-1'],
    ['SHUTDOWN_TIMEOUT_MS', '600001'],
    ['TRUST_PROXY', 'proxy.example.com'],
    ['TRUST_PROXY', '10.0.0.0/33'],
    ['TRUST_INCOMING_TRACE', 'yes'],
    ['TRUST_INCOMING_TRACE', 'public-key'],
    ['RATE_LIMITS', 'maybe'],
    ['RATE_LIMIT_WINDOW_SECONDS', '0'],
    ['RATE_LIMIT_PUBLIC_PER_IP', '-5'],
    ['RATE_LIMIT_AUTH_FAILURES_PER_APP', 'many'],
    ['REDIS_KEY_PREFIX', 'has space'],
    ['METRICS_TOKEN', 'short'],
    ['MDS_URL', 'ftp://mds.example.com/'],
    ['MDS_URL', 'mds.example.com'],
  ])('rejects %s=%s with a one-line ConfigError naming the variable', (variable, value) => {
    const { message } = configErrorFor({ [variable]: value });
    expect(message).toContain(variable);
    expect(message).not.toContain('\n');
  });

  it.each(['MANAGEMENT_KEY', 'TOKEN_KEY_ENCRYPTION_KEY'])('never echoes a rejected %s', (variable) => {
    const { message } = configErrorFor({ [variable]: 'hunter2-secret' });
    expect(message).toContain(variable);
    expect(message).not.toContain('hunter2');
  });

  it('accepts a 32-character MANAGEMENT_KEY', () => {
    expect(loadConfig({ MANAGEMENT_KEY: 'x'.repeat(32) }).managementKey).toBe('x'.repeat(32));
  });

  it('serves the management API on loopback when only MANAGEMENT_PORT is set', () => {
    expect(loadConfig({ MANAGEMENT_PORT: '7002' }).managementListener).toEqual({ host: '127.0.0.1', port: 7002 });
  });

  it('never echoes a rejected MANAGEMENT_KEY (the original case)', () => {
    const { message } = configErrorFor({ MANAGEMENT_KEY: 'hunter2-secret' });
    expect(message).toContain('MANAGEMENT_KEY');
    expect(message).not.toContain('hunter2');
  });

  it.each([
    ['DATABASE_URL', 'mysql://app:s3cretpw@db:3306/x'],
    ['SMTP_URL', 'http://mailer:s3cretpw@mail.example.com'],
    ['REDIS_URL', 'http://default:s3cretpw@cache:6379'],
  ])('never echoes the credentials in a rejected %s', (variable, value) => {
    const { message } = configErrorFor({ [variable]: value });
    expect(message).toContain(variable);
    expect(message).not.toContain('s3cretpw');
  });

  it('reports the first bad variable even when others are fine', () => {
    const { message } = configErrorFor({ PORT: '7002', DATABASE_URL: 'file:./x.db', REDIS_URL: 'memcached://x' });
    expect(message).toMatch(/REDIS_URL/);
    expect(message).not.toMatch(/PORT|DATABASE_URL/);
  });
});
