import { packageVersion } from '../../core/packageVersion';
import { withinTimeout } from '../../core/withinTimeout';
import type { ConsoleContext } from '../consoleContext';
import { when } from '../consoleForms';
import type { ConsoleRoutes } from '../consoleRoutes';
import { html, type Html } from '../html';
import { layout } from '../layout';

/** As /health: a dependency that does not answer within this is down (a stalled connection must not hang the page). */
const CHECK_TIMEOUT_MS = 5000;

type Status = 'Healthy' | 'Degraded' | 'Unhealthy' | 'Off';

interface Row {
  /** The row's name for scripts and tests (`data-check`). */
  key: string;
  name: string;
  status: Status;
  /** What was found, in a few words (never a URL or a message that may carry one). */
  detail: Html | string;
  elapsedMs?: number;
}

/** Runs one check within the timeout: its detail, or the error's name or code only (messages can carry connection details). */
async function probe(key: string, name: string, check: () => Promise<Html | string>, failed: Status = 'Unhealthy'): Promise<Row> {
  const started = performance.now();
  try {
    const detail = await withinTimeout(check(), CHECK_TIMEOUT_MS);
    return { key, name, status: 'Healthy', detail, elapsedMs: performance.now() - started };
  } catch (error) {
    const { name: errorName, code } = error as { name?: string; code?: unknown };
    return { key, name, status: failed, detail: typeof code === 'string' ? code : (errorName ?? 'Error'), elapsedMs: performance.now() - started };
  }
}

/** A count that `backlog` stopped at its cap: "more than cap". */
const counted = (value: number, cap: number) => (value > cap ? `more than ${cap.toLocaleString('en')}` : value.toLocaleString('en'));

/** A duration in words, to the second. */
function ago(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 120) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  return minutes < 120 ? `${minutes} min` : `${Math.round(minutes / 60)} h`;
}

/** The FIDO metadata in use (read in memory, never fetched here): off when none is configured, degraded when none has verified. */
async function metadataRow(ctx: ConsoleContext): Promise<Row> {
  const { metadata } = ctx.services;
  const catalog = await metadata.catalog();
  const row = { key: 'metadata', name: 'FIDO metadata' };
  if (catalog) return { ...row, status: 'Healthy', detail: `BLOB no. ${catalog.blob.no}, ${catalog.size} FIDO2 authenticators, next update ${catalog.blob.nextUpdate}` };
  if (metadata.configured) return { ...row, status: 'Degraded', detail: 'configured, but no BLOB has verified yet (see the service log): no authenticator can be listed' };
  return { ...row, status: 'Off', detail: 'not configured (MDS_BLOB_FILE, MDS_URL): no allow or block lists' };
}

/**
 * The service's health for the operator: storage and its migrations, mail, Redis (when REDIS_URL
 * is set), the webhook outbox's backlog, the FIDO metadata and the version. What /health checks,
 * the same way, plus the backlog; every figure is a bounded read (see docs/console.md).
 */
export function healthPage(ctx: ConsoleContext, routes: ConsoleRoutes): void {
  const { base, services } = ctx;

  routes.page(`${base}/health`, async (req, res, operator) => {
    const { store, storageHealth, mailer, redis, config } = services;
    // At once, so that the page waits at most one timeout whatever is down.
    const rows: Row[] = await Promise.all([
      probe('storage', `Storage (${store.provider})`, async () => {
        await storageHealth.check();
        return `answers; ${await storageHealth.migrations()} migrations applied, none pending`;
      }),
      probe('mail', `Mail (${mailer.kind})`, async () => {
        await mailer.check();
        return mailer.kind === 'smtp' ? 'the SMTP server answers and accepts the service' : 'MAIL_FILE can be written (no SMTP_URL: mail is not sent)';
      }),
      redis
        ? probe(
            'redis',
            'Redis',
            async () => {
              await redis.ping();
              return 'configured and answering: the replicas share rate limits and console sessions';
            },
            'Degraded',
          )
        : ({ key: 'redis', name: 'Redis', status: 'Off', detail: 'not configured (REDIS_URL): rate limits count per replica, console sessions live in this process' } satisfies Row),
      probe('webhooks', 'Webhook backlog', async () => {
        const backlog = await services.webhookDeliveries.backlog();
        const late = backlog.earliestNextAttemptAt === null ? 0 : ctx.now() - backlog.earliestNextAttemptAt.getTime();
        return html`<span data-backlog-pending>${counted(backlog.pending, backlog.cap)}</span> pending, <span data-backlog-due>${counted(backlog.due, backlog.cap)}</span> due now${
          late > 0 ? html`; the longest waiting has been due for ${ago(late)}` : backlog.earliestNextAttemptAt ? html`; the next attempt is at ${when(backlog.earliestNextAttemptAt)}` : ''
        }. ${config.webhookWorker ? 'This process sends webhooks.' : 'This process does not send webhooks (WEBHOOK_WORKER=false): another must.'}`;
      }),
      metadataRow(ctx),
      { key: 'version', name: 'Version', status: 'Healthy', detail: `passwordless-selfhost ${packageVersion()} on Node.js ${process.version}` },
    ] satisfies (Row | Promise<Row>)[]);
    const body = html`<table data-health><thead><tr><th>Check</th><th>Status</th><th>Detail</th><th class="num">ms</th></tr></thead><tbody>${rows.map(
      (row) => html`<tr data-check="${row.key}" data-status="${row.status}"><td>${row.name}</td><td><span class="badge health-${row.status.toLowerCase()}">${row.status}</span></td><td>${row.detail}</td>
<td class="num">${row.elapsedMs === undefined ? '' : row.elapsedMs.toFixed(1)}</td></tr>`,
    )}</tbody></table>
<p class="hint">Checked now, each within ${CHECK_TIMEOUT_MS / 1000} s. The backlog is every app's, counted up to a cap. The same checks answer anonymously at <code>/health/storage</code>, <code>/health/mail</code> and <code>/health/version</code>.</p>`;
    res.type('html').send(layout(ctx, req, { title: 'Health', body, operator, page: 'health' }));
  });
}
