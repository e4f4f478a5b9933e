#!/usr/bin/env node
import './serviceDependencies';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './server/core/config';
import { ApiError } from './server/core/apiError';
import { parseWith } from './server/core/validation';
import { createAppSchema } from './server/services/apps/apps';
import { createLogger } from './server/core/logger';
import { createServices } from './server/services';
import { startService } from './server/server';
import { stopOnSignals } from './server/stopOnSignals';
import { openStore } from './server/store';

const USAGE = `Usage: passwordless-selfhost <command>

  serve                                   start the service (default)
  migrate                                 apply pending database migrations and exit
  apps create <appId> --admin-email <e> [--plan trial|pro|enterprise]
                                          create an app; prints its keys once
  apps list                               list apps
  apps keys <appId>                       list an app's keys (secrets masked)
  apps lock <appId> <keyId>               lock one key (keyId = its last 4 characters)
  apps unlock <appId> <keyId>             unlock one key
  apps freeze <appId> | unfreeze <appId>  lock or unlock every key of an app
  apps delete <appId>                     delete an app and all of its data
  apps delete --schedule <appId>          schedule the deletion: the admin is mailed a link that
                                          cancels it; keys freeze after 24 h, data goes after 14 days
  apps cancel-delete <appId>              cancel a scheduled deletion

Configuration comes from the environment (DATABASE_URL, PORT, ...; see README).`;

class UsageError extends Error {}

async function withServices<T>(run: (services: ReturnType<typeof createServices>) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const store = openStore(config.databaseUrl);
  await store.migrate();
  // A command neither writes daily reports nor fetches FIDO metadata: the serving processes do.
  const services = createServices(config, store, { reportSweepIntervalMs: 0, metadataRefreshIntervalMs: 0 });
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
    options: { 'admin-email': { type: 'string' }, plan: { type: 'string' }, schedule: { type: 'boolean' } },
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
