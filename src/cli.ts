#!/usr/bin/env node
import './serviceDependencies';
import './tracingFromEnv';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './server/core/config';
import { ApiError } from './server/core/apiError';
import { refuseReservedAppId } from './server/core/reservedAppId';
import { parseWith } from './server/core/validation';
import { createLogger } from './server/core/logger';
import type { Services } from './server/services';
import type { KeyKind, Scope } from './server/services/apps/apiKeys';
import { backupDatabase } from './server/data/backupDatabase';
import { describeManifestCheck } from './server/data/backupManifest';
import { backupMacKeyFrom } from './server/data/backupMacKey';
import { copyData, type CopyProgress } from './server/data/copyData';
import { formatCopyReport } from './server/data/copyReport';
import { databaseLabel } from './server/data/databaseLabel';
import { restoreDatabase } from './server/data/restoreDatabase';

const USAGE = `Usage: passwordless-selfhost <command>

  serve                                   start the service
  migrate                                 apply pending database migrations and exit
  apps create <appId> --admin-email <e> [--plan trial|pro|enterprise]
                                          create an app; prints its keys once
  apps list                               list apps
  apps keys <appId>                       list an app's keys (secrets masked)
  apps create-key <appId> public|secret [--scopes <s1,s2,...>]
                                          create a key (default: every scope of its kind); prints it once
  apps lock <appId> <keyId>               lock one key (keyId = its last 4 characters)
  apps unlock <appId> <keyId>             unlock one key
  apps freeze <appId> | unfreeze <appId>  lock or unlock every key of an app
  apps delete <appId>                     delete an app and all of its data
  apps delete --schedule <appId>          schedule the deletion: the admin is mailed a link that
                                          cancels it; keys freeze after 24 h, data goes after 14 days
  apps cancel-delete <appId>              cancel a scheduled deletion
  webhooks list <appId>                   list an app's webhook endpoints (no secrets)
  webhooks create <appId> --url <https://…> --event-types <t1,t2,...> [--description <d>] [--disabled]
                                          add an endpoint; prints its signing secret once
  webhooks update <appId> <id> [--url <u>] [--event-types <t1,...>] [--description <d>] [--enabled|--disabled]
  webhooks delete <appId> <id>            delete an endpoint and its deliveries
  webhooks rotate-secret <appId> <id>     new signing secret, printed once (the old one signs 24 h more)
  data copy --from <DATABASE_URL> --to <DATABASE_URL> [--since <snapshot id>]
                                          copy every table in one snapshot and one transaction
                                          (SQLite to PostgreSQL or back), then compare counts and
                                          checksums; --since brings an earlier copy up to date.
                                          Refuses a source or target whose schema is not what the
                                          migrations make, and a backup file that fails its checks
  backup <file>                           online, consistent backup of the SQLite database (0600),
                                          with every table's checksum, signed with BACKUP_MAC_KEY
                                          when it is set
  restore <file>                          replace the SQLite database with a backup (service
                                          stopped), once its checksums, its signature (when
                                          BACKUP_MAC_KEY is set) and its schema are checked
  token-keys rewrap                       store every token key and webhook secret wrapped with
                                          TOKEN_KEY_ENCRYPTION_KEY (plain ones, and ones wrapped
                                          with _PREVIOUS); see docs/security.md
  doctor [--url <https://app.example.com>] [--rp-id <domain>] [--no-verify-email] [--recovery]
                                          check a deployment from outside with the middleware's
                                          settings (Passwordless__* or --api-url, --api-key,
                                          --api-secret, --origins, --public-url): one line per
                                          check, each failure with its fix; exit code 1 on any
                                          (doctor --help says more)
  console invite <email>                  print a link that makes <email> an operator of the
                                          console (PUBLIC_URL/console): it registers their
                                          passkey, works once, for 24 hours; see docs/console.md
  console reset                           delete the console's own app (pwlconsole): its
                                          operators, their passkeys, its event log; for an app
                                          the console refuses as not its own
  generate-key management|token-encryption|metrics|backup-mac
                                          print a fresh random value for MANAGEMENT_KEY,
                                          TOKEN_KEY_ENCRYPTION_KEY, METRICS_TOKEN or BACKUP_MAC_KEY
                                          (256 bits)

Configuration comes from the environment (DATABASE_URL, PORT, ...; see README).
Moving, backing up and restoring data: docs/operations.md, "Moving and backing up data".`;

class UsageError extends Error {}

/*
 * The service, its store and Prisma's clients are loaded by the commands that use them: `data
 * copy`, `backup` and `restore` start without them (about a second less on these machines).
 */

async function withServices<T>(run: (services: Services) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const [{ openStore, TokenKeyRepository }, { createServices }] = await Promise.all([import('./server/store'), import('./server/services')]);
  const store = openStore(config.databaseUrl);
  await store.migrate();
  try {
    const { assertTokenKeysReadable } = await import('./server/services/tokens/assertTokenKeysReadable');
    await assertTokenKeysReadable(new TokenKeyRepository({ db: store.db }), config.tokenKeyEncryption);
  } catch (error) {
    await store.close();
    throw error;
  }
  // A command neither writes daily reports nor fetches FIDO metadata: the serving processes do.
  // Nor does it send webhooks.
  const services = createServices(config, store, { reportSweepIntervalMs: 0, metadataRefreshIntervalMs: 0, webhooks: { pollIntervalMs: 0 } });
  try {
    return await run(services);
  } finally {
    await services.close();
  }
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

async function apps(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { 'admin-email': { type: 'string' }, plan: { type: 'string' }, schedule: { type: 'boolean' }, scopes: { type: 'string' } },
  });
  const [action, appId, keyId] = positionals;
  const need = (value: string | undefined, what: string) => {
    if (!value) throw new UsageError(`apps ${action}: missing ${what}`);
    return value;
  };
  // The console's own app is the console's: no apps command creates, keys, changes or deletes it (`console reset` removes it).
  if (appId !== undefined && action !== 'list') refuseReservedAppId(appId);
  await withServices(async ({ apps: service, deletions }) => {
    switch (action) {
      case 'create': {
        // The same validation as the management API's create.
        const { createAppSchema } = await import('./server/services/apps/apps');
        const input = parseWith(createAppSchema, { adminEmail: need(values['admin-email'], '--admin-email'), plan: values.plan });
        const created = await service.create(need(appId, '<appId>'), input);
        print({ appId, ...created });
        return;
      }
      case 'list':
        print(await service.list());
        return;
      case 'keys':
        print(await service.listKeys(need(appId, '<appId>')));
        return;
      case 'create-key': {
        const kind = need(keyId, 'public|secret');
        if (kind !== 'public' && kind !== 'secret') throw new UsageError(`apps create-key: the kind is public or secret, not '${kind}'`);
        const { scopesOf } = await import('./server/services/apps/apiKeys');
        const scopes = values.scopes === undefined ? [...scopesOf(kind as KeyKind)] : (values.scopes.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean) as Scope[]);
        const apiKey = await service.createKey(need(appId, '<appId>'), kind, scopes);
        print({ appId, kind, scopes, apiKey });
        return;
      }
      case 'lock':
      case 'unlock':
        await service.setKeyLocked(need(appId, '<appId>'), need(keyId, '<keyId>'), action === 'lock');
        process.stdout.write(`key ${keyId} of ${appId} ${action}ed\n`);
        return;
      case 'freeze':
      case 'unfreeze':
        await service.setFrozen(need(appId, '<appId>'), action === 'freeze');
        process.stdout.write(`${appId} ${action === 'freeze' ? 'frozen' : 'unfrozen'}\n`);
        return;
      case 'delete':
        print(values.schedule ? await deletions.schedule(need(appId, '<appId>'), 'the command line') : await service.delete(need(appId, '<appId>')));
        return;
      case 'cancel-delete':
        print(await deletions.cancel(need(appId, '<appId>'), 'the command line'));
        return;
      default:
        throw new UsageError(action ? `unknown apps command '${action}'` : 'apps: missing a command');
    }
  });
}

async function webhooks(args: string[]): Promise<void> {
  const { values, positionals } = parseOptions(args, {
    url: { type: 'string' },
    'event-types': { type: 'string' },
    description: { type: 'string' },
    enabled: { type: 'boolean' },
    disabled: { type: 'boolean' },
  });
  const [action, appId, id] = positionals;
  const need = (value: string | undefined, what: string) => {
    if (!value) throw new UsageError(`webhooks ${action}: missing ${what}`);
    return value;
  };
  if (appId !== undefined) refuseReservedAppId(appId);
  const eventTypes = values['event-types']?.split(',').map((t) => t.trim()).filter(Boolean);
  const enabled = values.disabled ? false : values.enabled ? true : undefined;
  // The same validation as the APIs'.
  const { adminUpdateWebhookSchema, createWebhookSchema } = await import('./server/services/webhooks/webhookEndpoints');
  await withServices(async ({ webhooks: service }) => {
    if (['list', 'create', 'update', 'delete', 'rotate-secret'].includes(action)) await service.assertApp(need(appId, '<appId>'));
    switch (action) {
      case 'list':
        print(await service.list(appId));
        return;
      case 'create':
        print(await service.create(appId, parseWith(createWebhookSchema, { url: need(values.url, '--url'), eventTypes: need(values['event-types'], '--event-types') && eventTypes, description: values.description, enabled })));
        return;
      case 'update':
        print(await service.update(appId, need(id, '<id>'), parseWith(adminUpdateWebhookSchema, { url: values.url, eventTypes, description: values.description, enabled })));
        return;
      case 'delete':
        await service.delete(appId, need(id, '<id>'));
        process.stdout.write(`webhook ${id} of ${appId} deleted\n`);
        return;
      case 'rotate-secret':
        print(await service.rotateSecret(appId, need(id, '<id>')));
        return;
      default:
        throw new UsageError(action ? `unknown webhooks command '${action}'` : 'webhooks: missing a command');
    }
  });
}

/** One progress line, redrawn in place, on a terminal only (a library would add nothing to this). */
function progressLine(): { update(progress: CopyProgress): void; clear(): void } {
  if (!process.stderr.isTTY) return { update: () => undefined, clear: () => undefined };
  let last = 0;
  return {
    update({ phase, table, rows, total }) {
      const now = Date.now();
      if (now - last < 100 && rows < total) return;
      last = now;
      const share = total > 0 ? ` (${Math.min(100, Math.floor((rows * 100) / total))} %)` : '';
      process.stderr.write(`\r${phase === 'copy' ? 'copying' : 'checking'} ${table}: ${rows.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} rows${share}\x1b[K`);
    },
    clear: () => process.stderr.write('\r\x1b[K'),
  };
}

function parseOptions<T extends Record<string, { type: 'string' | 'boolean' }>>(args: string[], options: T) {
  try {
    return parseArgs({ args, allowPositionals: true, options, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

async function data(args: string[]): Promise<void> {
  const { values, positionals } = parseOptions(args, { from: { type: 'string' }, to: { type: 'string' }, since: { type: 'string' } });
  if (positionals[0] !== 'copy' || positionals.length > 1) throw new UsageError(positionals[0] ? `unknown data command '${positionals.join(' ')}'` : 'data: missing a command');
  if (!values.from || !values.to) throw new UsageError(`data copy: missing ${values.from ? '--to' : '--from'}`);
  const progress = progressLine();
  let result;
  try {
    result = await copyData({ from: values.from, to: values.to, since: values.since, onProgress: progress.update, backupMacKey: backupMacKeyFrom() });
  } finally {
    progress.clear();
  }
  const command = `passwordless-selfhost data copy --from ${databaseLabel(values.from)} --to ${databaseLabel(values.to)}`;
  process.stdout.write(formatCopyReport(result, command, Boolean(process.env.TOKEN_KEY_ENCRYPTION_KEY)));
  if (!result.equal) {
    process.stderr.write('error: the target differs from the snapshot it was copied from (see the table above)\n');
    process.exitCode = 1;
  }
}

function oneFile(command: string, args: string[]): string {
  const { positionals } = parseOptions(args, {});
  if (positionals.length !== 1) throw new UsageError(`${command}: give exactly one <file>`);
  return positionals[0];
}

async function tokenKeys([action]: string[]): Promise<void> {
  if (action !== 'rewrap') throw new UsageError(action ? `unknown token-keys command '${action}'` : 'token-keys: missing a command');
  const config = loadConfig();
  if (!config.tokenKeyEncryption.current) throw new UsageError('token-keys rewrap: set TOKEN_KEY_ENCRYPTION_KEY to the key to wrap with');
  const [{ openStore, TokenKeyRepository }, { rewrapTokenKeys }, { resealWebhookSecrets }] = await Promise.all([
    import('./server/store'),
    import('./server/services/tokens/rewrapTokenKeys'),
    import('./server/services/webhooks/resealWebhookSecrets'),
  ]);
  const store = openStore(config.databaseUrl);
  try {
    await store.migrate();
    // The token keys' counts stay at the top, as before webhooks; the webhook secrets' beside them.
    const { tokenKeys, webhookEndpoints } = store.repositories({ now: Date.now, outboxQuota: config.webhookDelivery.outboxQuota, logger: createLogger(config.logLevel) });
    const report = await rewrapTokenKeys(tokenKeys, config.tokenKeyEncryption);
    const webhookSecrets = await resealWebhookSecrets(webhookEndpoints, config.tokenKeyEncryption);
    print({ ...report, webhookSecrets });
    if (report.unreadable.length > 0 || webhookSecrets.unreadable.length > 0) {
      process.stderr.write('some token keys or webhook secrets open with none of the configured keys: set TOKEN_KEY_ENCRYPTION_KEY_PREVIOUS to the key they were wrapped with\n');
      process.exitCode = 1;
    }
  } finally {
    await store.close();
  }
}

/** 32 random bytes, base64url (43 characters): what MANAGEMENT_KEY, TOKEN_KEY_ENCRYPTION_KEY, METRICS_TOKEN and BACKUP_MAC_KEY take. */
async function consoleCommand([action, email, ...extra]: string[]): Promise<void> {
  if (action === 'reset' && email === undefined) return consoleReset();
  if (action !== 'invite' || !email || extra.length > 0) throw new UsageError('console: say `console invite <email>` or `console reset`');
  const { inviteOperator } = await import('./server/console/inviteOperator');
  await withServices(async (services) => {
    const invite = await inviteOperator(services, { email, by: 'CLI' });
    process.stdout.write(`Open this link to make ${invite.email} an operator (it works once, until ${invite.expiresAt}):\n\n  ${invite.link}\n\n`);
    if (!services.config.console.enabled) process.stdout.write('The console is off in this configuration: start the service with CONSOLE=on (it is on by default only when PUBLIC_URL and HOST are this machine).\n');
  });
}

/** Deletes the console's app, whoever made it: its operators, their passkeys and sessions' users, its event log. */
async function consoleReset(): Promise<void> {
  const { CONSOLE_APP_ID } = await import('./server/core/reservedAppId');
  await withServices(async (services) => {
    const deleted = await services.apps.delete(CONSOLE_APP_ID, 'the command line');
    process.stdout.write(`${deleted.message} Its operators, their passkeys and its event log are gone; \`console invite <email>\` makes the console's app again, with a first operator. A service whose console was running needs a restart.\n`);
  });
}

function generateKey([what]: string[]): void {
  if (what !== 'management' && what !== 'token-encryption' && what !== 'metrics' && what !== 'backup-mac') {
    throw new UsageError(what ? `generate-key: unknown key '${what}'` : 'generate-key: say which key (management, token-encryption, metrics or backup-mac)');
  }
  process.stdout.write(`${randomBytes(32).toString('base64url')}\n`);
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  // No command is a mistake, not a request to serve: a service with a new database in whatever
  // folder the command ran in would hide it. `serve` says so (as `npm start` does).
  if (command === undefined) throw new UsageError('missing a command (`serve` starts the service)');
  switch (command) {
    case 'serve': {
      const config = loadConfig();
      const logger = createLogger(config.logLevel);
      const [{ startService }, { stopOnSignals }] = await Promise.all([import('./server/server'), import('./server/stopOnSignals')]);
      stopOnSignals(await startService(config, logger), logger, config.shutdownTimeoutMs);
      return;
    }
    case 'migrate': {
      const config = loadConfig();
      const { openStore } = await import('./server/store');
      const store = openStore(config.databaseUrl);
      try {
        const applied = await store.migrate();
        process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
      } finally {
        await store.close();
      }
      return;
    }
    case 'apps':
      return apps(rest);
    case 'webhooks':
      return webhooks(rest);
    case 'data':
      return data(rest);
    case 'backup': {
      const file = oneFile('backup', rest);
      const done = await backupDatabase(loadConfig().databaseUrl, file, backupMacKeyFrom());
      process.stdout.write(`backup of ${done.database} written to ${done.file}: ${done.bytes.toLocaleString('en-US')} bytes, schema ${done.schema}, in ${done.ms} ms\n`);
      process.stdout.write(
        `its manifest records every table's checksum (${done.tables} tables, ${done.rows.toLocaleString('en-US')} rows); ${done.signed ? 'signed with BACKUP_MAC_KEY' : 'not signed (BACKUP_MAC_KEY is not set)'}\n`,
      );
      return;
    }
    case 'restore': {
      const file = oneFile('restore', rest);
      const done = await restoreDatabase(loadConfig().databaseUrl, file, backupMacKeyFrom());
      process.stdout.write(`restored ${done.file} into ${done.database} (schema ${done.schema})\n`);
      process.stdout.write(
        `checked before it was restored: the schema is what the migrations make; ${done.checked ? describeManifestCheck(done.checked) : 'it carries no manifest (not written by `backup`, or by an older version), so its rows could not be checked against one'}\n`,
      );
      if (done.pending.length) process.stdout.write(`the service applies ${done.pending.length} newer migration(s) when it starts: ${done.pending.join(', ')}\n`);
      if (done.previous) process.stdout.write(`the database it replaced is kept as ${done.previous}; delete it once the service runs well on the restored one\n`);
      return;
    }
    case 'console':
      return consoleCommand(rest);
    case 'generate-key':
      return generateKey(rest);
    case 'token-keys':
      return tokenKeys(rest);
    case 'doctor': {
      const { doctorCommand } = await import('./doctorCommand');
      if (!(await doctorCommand(rest))) process.exitCode = 1;
      return;
    }
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${USAGE}\n`);
      return;
    default:
      throw new UsageError(`unknown command '${command}'`);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError) process.stderr.write(`${error.message}\n`);
  else if (error instanceof UsageError) process.stderr.write(`${error.message}\n\n${USAGE}\n`);
  else if (error instanceof ApiError) process.stderr.write(`error: ${error.message}${error.detail ? ` (${error.detail})` : ''}\n`);
  else process.stderr.write(`error: ${(error as Error).message}\n`);
  process.exit(1);
});
