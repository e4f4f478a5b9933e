import { Router } from 'express';
import nodemailer from 'nodemailer';
import { loadMigrations } from '../store/migrate';
import type { Services } from '../services';

type Status = 'Healthy' | 'Unhealthy';
interface CheckResult {
  status: Status;
  elapsedMilliseconds: number;
  data: Record<string, unknown>;
}

async function timed(check: () => Promise<Record<string, unknown>>): Promise<CheckResult> {
  const started = performance.now();
  try {
    const data = await check();
    return { status: 'Healthy', elapsedMilliseconds: performance.now() - started, data };
  } catch (error) {
    return { status: 'Unhealthy', elapsedMilliseconds: performance.now() - started, data: { error: (error as Error).name } };
  }
}

async function report(checks: Record<string, () => Promise<Record<string, unknown>>>) {
  const started = performance.now();
  const results: Record<string, CheckResult> = {};
  for (const [name, check] of Object.entries(checks)) results[name] = await timed(check);
  const status: Status = Object.values(results).every((r) => r.status === 'Healthy') ? 'Healthy' : 'Unhealthy';
  return { status, elapsedMilliseconds: performance.now() - started, results };
}

/** Anonymous health checks (spec: /api/health/*; also served at /health/*). */
export function healthRoutes(services: Services): Router {
  const router = Router();
  const { store } = services;
  const expectedMigrations = loadMigrations(store.provider).map((m) => m.name);

  router.all('/health/http', (_req, res) => {
    res.type('text/plain').send('Healthy');
  });

  router.get('/health/storage', async (_req, res) => {
    const body = await report({
      [store.provider]: async () => {
        await store.ping();
        return {};
      },
      orm: async () => {
        const applied = await store.appliedMigrations();
        const missing = expectedMigrations.filter((name) => !applied.includes(name));
        if (missing.length > 0) throw Object.assign(new Error('schema out of date'), { name: 'PendingMigrations' });
        return { migrations: applied.length };
      },
    });
    res.status(body.status === 'Healthy' ? 200 : 503).json(body);
  });

  // No SMTP configured: mail is appended to MAIL_FILE and there is nothing to check.
  router.get('/health/mail', async (_req, res) => {
    const { smtpUrl } = services.config;
    const body = await report(
      smtpUrl === undefined
        ? {}
        : {
            smtp: async () => {
              const transport = nodemailer.createTransport(smtpUrl);
              try {
                await transport.verify();
              } finally {
                transport.close();
              }
              return {};
            },
          },
    );
    res.status(body.status === 'Healthy' ? 200 : 503).json(body);
  });
  return router;
}
