#!/usr/bin/env node
import './serviceDependencies';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './server/core/config';
import { ApiError } from './server/core/apiError';
import { parseWith } from './server/core/validation';
import { createAppSchema } from './server/services/apps/apps';
import { scopesOf, type KeyKind, type Scope } from './server/services/apps/apiKeys';
import { createLogger } from './server/core/logger';
import { createServices } from './server/services';
import { startService } from './server/server';
import { stopOnSignals } from './server/stopOnSignals';
import { openStore } from './server/store';
import { assertTokenKeysReadable } from './server/services/tokens/assertTokenKeysReadable';
import { rewrapTokenKeys } from './server/services/tokens/rewrapTokenKeys';

const USAGE = `Usage: passwordless-selfhost <command>

  serve                                   start the service (default)
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
  token-keys rewrap                       store every token key wrapped with TOKEN_KEY_ENCRYPTION_KEY
                                          (plain ones, and ones wrapped with _PREVIOUS); see docs/security.md
  generate-key management|token-encryption|metrics
                                          print a fresh random value for MANAGEMENT_KEY,
                                          TOKEN_KEY_ENCRYPTION_KEY or METRICS_TOKEN (256 bits)

Configuration comes from the environment (DATABASE_URL, PORT, ...; see README).`;

class UsageError extends Error {}

async function withServices<T>(run: (services: ReturnType<typeof createServices>) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const store = openStore(config.databaseUrl);
  await store.migrate();
  try {
    await assertTokenKeysReadable(store.db, config.tokenKeyEncryption);
  } catch (error) {
    await store.close();
    throw error;
  }
  const services = createServices(config, store);
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
  await withServices(async ({ apps: service, deletions }) => {
    switch (action) {
      case 'create': {
        // The same validation as the management API's create.
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

async function tokenKeys([action]: string[]): Promise<void> {
  if (action !== 'rewrap') throw new UsageError(action ? `unknown token-keys command '${action}'` : 'token-keys: missing a command');
  const config = loadConfig();
  if (!config.tokenKeyEncryption.current) throw new UsageError('token-keys rewrap: set TOKEN_KEY_ENCRYPTION_KEY to the key to wrap with');
  const store = openStore(config.databaseUrl);
  try {
    await store.migrate();
    const report = await rewrapTokenKeys(store.db, config.tokenKeyEncryption);
    print(report);
    if (report.unreadable.length > 0) {
      process.stderr.write('some token keys open with none of the configured keys: set TOKEN_KEY_ENCRYPTION_KEY_PREVIOUS to the key they were wrapped with\n');
      process.exitCode = 1;
    }
  } finally {
    await store.close();
  }
}

/** 32 random bytes, base64url (43 characters): what MANAGEMENT_KEY, TOKEN_KEY_ENCRYPTION_KEY and METRICS_TOKEN take. */
function generateKey([what]: string[]): void {
  if (what !== 'management' && what !== 'token-encryption' && what !== 'metrics') {
    throw new UsageError(what ? `generate-key: unknown key '${what}'` : 'generate-key: say which key (management, token-encryption or metrics)');
  }
  process.stdout.write(`${randomBytes(32).toString('base64url')}\n`);
}

async function main(argv: string[]): Promise<void> {
  const [command = 'serve', ...rest] = argv;
  switch (command) {
    case 'serve': {
      const config = loadConfig();
      const logger = createLogger(config.logLevel);
      stopOnSignals(await startService(config, logger), logger, config.shutdownTimeoutMs);
      return;
    }
    case 'migrate': {
      const config = loadConfig();
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
    case 'generate-key':
      return generateKey(rest);
    case 'token-keys':
      return tokenKeys(rest);
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
