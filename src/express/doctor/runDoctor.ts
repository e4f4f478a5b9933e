import { Agent, type Dispatcher } from 'undici';
import { parseKey } from '../../shared/apiKeys';
import { explainOriginRefusal } from '../../shared/explainOriginRefusal';
import { checkClock } from './checkClock';
import { checkHttps } from './checkHttps';
import { checkRpId } from './checkRpId';
import { fail, pass, type DoctorCheck } from './doctorCheck';
import { DOCTOR_HEADER, doctorProof } from './doctorProof';
import { doctorRequest } from './doctorRequest';
import { isLoopbackHost } from './isLoopbackHost';
import { unansweredReason } from './unansweredReason';

/** The middleware's settings the doctor reads (see settings.ts). */
export interface DoctorSettings {
  apiUrl: string;
  apiKey: string;
  apiSecret: string;
  origins: readonly string[] | undefined;
  publicUrl: string | undefined;
  register: { expirationSeconds: number };
}

export interface DoctorOptions {
  settings: DoctorSettings;
  /** The RP ID the pages use (`createPasskeys({ rpId })`). Default: the host of the first origin, as the browser module's default. */
  rpId?: string;
  /** The host's public URL: fetch it there, through whatever proxy serves it. */
  url?: string;
  /** The mailed links the host sends (the middleware's `verifyEmail`, on by default, and `recovery`). */
  mailedLinks: { verifyEmail: boolean; recovery: boolean };
  /** Where the host mounts its diagnostic route. Default `/passwordless-doctor`. */
  doctorPath?: string;
  /** Another undici dispatcher (a proxy, a test CA). */
  dispatcher?: Dispatcher;
  now?: () => number;
}

/** What the host's diagnostic route answers (to a caller that proved it holds the ApiSecret). */
interface HostReport {
  protocol: string;
  forwardedProto: string | null;
  trustProxy: boolean;
  origins: string[];
}

/** An origin no app lists: the service accepting it means the app's allowedOrigins is empty. */
const PROBE_ORIGIN = 'https://passwordless-doctor.invalid';

const errorCodeOf = (json: unknown) => {
  const code = (json as { errorCode?: unknown } | undefined)?.errorCode;
  return typeof code === 'string' ? code : undefined;
};

/**
 * Checks a deployment from outside, with the middleware's settings: the service answers and both
 * keys are one app's; the clocks agree within the token lifetimes; the service accepts the host's
 * Origins; the RP ID fits them; HTTPS outside localhost; mail where mailed links need it; and,
 * with `url`, the host as the public reaches it (its Origins, and `trust proxy` behind a proxy).
 * One check per line, each failure with its fix. Never throws for what it finds.
 */
export async function runDoctor(options: DoctorOptions): Promise<DoctorCheck[]> {
  const dispatcher = options.dispatcher ?? new Agent({ connect: { timeout: 5000 }, headersTimeout: 10_000, bodyTimeout: 10_000 });
  const now = options.now ?? Date.now;
  const { settings } = options;
  const api = settings.apiUrl.replace(/\/+$/, '');
  try {
    const checks: DoctorCheck[] = [];
    const service = await checkService(dispatcher, settings, api, now);
    checks.push(service.check);
    if (service.skewMs !== undefined) checks.push(checkClock(service.skewMs, settings.register.expirationSeconds));
    if (service.check.ok) checks.push(await checkOrigins(dispatcher, settings, api));
    const origins = settings.origins ?? [];
    if (origins.length > 0) checks.push(checkRpId(options.rpId ?? new URL(origins[0]).hostname, origins));
    const addresses = [
      ...origins.map((url) => ({ setting: 'Origins', url })),
      ...(settings.publicUrl ? [{ setting: 'PublicUrl', url: settings.publicUrl }] : []),
      { setting: 'ApiUrl', url: api },
      ...(options.url ? [{ setting: '--url', url: options.url }] : []),
    ];
    // Each address once (PublicUrl is usually the first origin), under the first setting that names it.
    checks.push(checkHttps(addresses.filter((a, i) => addresses.findIndex((b) => b.url.replace(/\/+$/, '') === a.url.replace(/\/+$/, '')) === i)));
    if (service.check.ok) checks.push(await checkMail(dispatcher, api, options.mailedLinks, origins));
    if (options.url) checks.push(...(await checkHost(dispatcher, options.url, settings, options.doctorPath ?? '/passwordless-doctor', now)));
    return checks;
  } finally {
    if (!options.dispatcher) await dispatcher.close();
  }
}

async function checkService(http: Dispatcher, settings: DoctorSettings, api: string, now: () => number): Promise<{ check: DoctorCheck; skewMs?: number }> {
  const publicKey = parseKey(settings.apiKey.trim());
  const secretKey = parseKey(settings.apiSecret.trim());
  if (publicKey?.kind !== 'public' || secretKey?.kind !== 'secret') {
    return { check: fail('service', 'ApiKey or ApiSecret is not a key of the right kind', "copy the app's keys: ApiKey '<appId>:public:…', ApiSecret '<appId>:secret:…'") };
  }
  if (publicKey.appId !== secretKey.appId) {
    return { check: fail('service', `ApiKey belongs to the app '${publicKey.appId}' and ApiSecret to '${secretKey.appId}'`, 'use the two keys of one app') };
  }
  const before = now();
  let health;
  try {
    health = await doctorRequest(http, `${api}/health/http`);
  } catch (error) {
    return { check: fail('service', `the service at ${api} does not answer (${unansweredReason(error)}); the clock, origins and mail checks need it`, 'start the service, or correct Passwordless__ApiUrl') };
  }
  // The Date header is cut to the second: the service's time was within it, half a second in on average.
  const skewMs = Number.isNaN(health.date) ? undefined : health.date + 500 - (before + now()) / 2;
  if (health.status !== 200) {
    return { check: fail('service', `${api}/health/http answers ${health.status}: that is not the service`, 'point Passwordless__ApiUrl at the service (with /api when it is served under that path)'), skewMs };
  }
  try {
    const secret = await doctorRequest(http, `${api}/users/count`, { headers: { ApiSecret: settings.apiSecret } });
    if (secret.status !== 200) {
      return { check: fail('service', `the service refuses the ApiSecret (${secret.status} ${errorCodeOf(secret.json) ?? ''})`.trim(), "use a current, unlocked ApiSecret of the app (apps keys <appId> lists them)"), skewMs };
    }
    const key = await doctorRequest(http, `${api}/signin/begin`, { method: 'POST', headers: { ApiKey: settings.apiKey }, body: { origin: settings.origins?.[0] ?? PROBE_ORIGIN } });
    if (key.status === 401 || key.status === 403) {
      return { check: fail('service', `the service refuses the ApiKey (${key.status} ${errorCodeOf(key.json) ?? ''})`.trim(), 'use a current, unlocked ApiKey of the app (apps keys <appId> lists them)'), skewMs };
    }
  } catch (error) {
    return { check: fail('service', `the service at ${api} stopped answering (${unansweredReason(error)})`, 'check the service and the network between'), skewMs };
  }
  return { check: pass('service', `the service at ${api} answers, and accepts the ApiKey and the ApiSecret, both of the app '${secretKey.appId}'`), skewMs };
}

async function checkOrigins(http: Dispatcher, settings: DoctorSettings, api: string): Promise<DoctorCheck> {
  if (!settings.origins) {
    return fail('origins', 'Passwordless__Origins (or PublicUrl) is not set', "set Passwordless__Origins to your pages' web origins, such as https://app.example.com");
  }
  const begin = (origin: string) => doctorRequest(http, `${api}/signin/begin`, { method: 'POST', headers: { ApiKey: settings.apiKey }, body: { origin } });
  try {
    const refused: string[] = [];
    for (const origin of settings.origins) {
      const answer = await begin(origin);
      if (answer.status !== 200) refused.push(`${origin} (${errorCodeOf(answer.json) ?? answer.status})`);
    }
    if (refused.length > 0) {
      return fail(
        'origins',
        `the service refuses ${refused.join(', ')} of the host's Origins: not in the app's allowedOrigins`,
        `add them to the app's allowedOrigins (POST /admin/apps/${parseKey(settings.apiSecret.trim())?.appId ?? '<appId>'}/features {"allowedOrigins": [...]} with the ManagementKey), or take them out of Passwordless__Origins`,
      );
    }
    const open = (await begin(PROBE_ORIGIN)).status === 200;
    return pass(
      'origins',
      open
        ? `the service accepts the host's Origins (${settings.origins.join(', ')}); its allowedOrigins is empty, so it accepts any origin (listing these there is safer)`
        : `the app's allowedOrigins at the service accept every one of the host's Origins (${settings.origins.join(', ')})`,
    );
  } catch (error) {
    return fail('origins', `the service stopped answering (${unansweredReason(error)})`, 'check the service and the network between');
  }
}

async function checkMail(http: Dispatcher, api: string, links: DoctorOptions['mailedLinks'], origins: readonly string[]): Promise<DoctorCheck> {
  const needs = [links.verifyEmail ? 'verifyEmail' : '', links.recovery ? 'recovery' : ''].filter(Boolean).join(' and ');
  if (!needs) return pass('mail', 'no mailed links are on (verifyEmail and recovery are off): the host needs no mail');
  let answer;
  try {
    answer = await doctorRequest(http, `${api}/health/mail`);
  } catch (error) {
    return fail('mail', `the service stopped answering (${unansweredReason(error)})`, 'check the service and the network between');
  }
  if (answer.status !== 200) {
    return fail('mail', `the service cannot send mail (/health/mail answers ${answer.status}), and ${needs} mail links`, 'check SMTP_URL and MAIL_FROM at the service (GET /health/mail names the failing check)');
  }
  const results = (answer.json as { results?: Record<string, unknown> } | undefined)?.results ?? {};
  if (Object.keys(results).length > 0) return pass('mail', `the service's mail server answers (${needs} mail links)`);
  // No mail server: the service appends mail to its MAIL_FILE.
  if (origins.length > 0 && origins.every((origin) => isLoopbackHost(new URL(origin).hostname))) {
    return pass('mail', `the service writes mail to its MAIL_FILE (no SMTP_URL), which is enough while every origin is on this machine (${needs} mail links)`);
  }
  return fail('mail', `the service writes mail to its MAIL_FILE instead of sending it, and ${needs} mail links to people`, 'set SMTP_URL and MAIL_FROM at the service');
}

function isHostReport(value: unknown): value is HostReport {
  const report = value as HostReport | undefined;
  return typeof report?.protocol === 'string' && Array.isArray(report.origins) && report.origins.every((o) => typeof o === 'string');
}

async function checkHost(http: Dispatcher, url: string, settings: DoctorSettings, path: string, now: () => number): Promise<DoctorCheck[]> {
  const publicUrl = new URL(url);
  const target = `${publicUrl.origin}${path}`;
  let answer;
  try {
    answer = await doctorRequest(http, target, { headers: { [DOCTOR_HEADER]: doctorProof(settings.apiSecret, now()) } });
  } catch (error) {
    return [fail('host', `the host at ${publicUrl.origin} does not answer (${unansweredReason(error)})`, 'check the URL, its DNS name, the proxy and its certificate')];
  }
  if (answer.status !== 200 || !isHostReport(answer.json)) {
    return [
      fail(
        'host',
        `the host at ${publicUrl.origin} did not answer its diagnostic route ${path} (${answer.status})`,
        "run the host with passwordless() and this ApiSecret (its doctor route is mounted unless paths.doctor is null), and keep both clocks within 5 minutes",
      ),
    ];
  }
  const report = answer.json;
  const checks: DoctorCheck[] = [];
  const origin = publicUrl.origin;
  const differs = settings.origins && settings.origins.join(',') !== report.origins.join(',') ? ` (this run's Origins differ: ${settings.origins.join(', ')})` : '';
  if (report.origins.includes(origin)) {
    checks.push(pass('public-url', `${origin} is one of the host's Origins${differs}`));
  } else {
    const { cause, hint } = explainOriginRefusal({ expected: report.origins, received: origin, setting: 'Passwordless__Origins' });
    checks.push(fail('public-url', `${origin} (the public URL) is not one of the host's Origins (${report.origins.join(', ')}): ${cause.replace(/_/g, ' ')}${differs}`, `${hint} Sign-ins on it are refused until then.`));
  }
  const scheme = publicUrl.protocol.slice(0, -1);
  if (report.protocol === scheme) {
    checks.push(pass('trust-proxy', `Express sees ${scheme}, as the public URL says${report.forwardedProto ? ` (X-Forwarded-Proto ${report.forwardedProto})` : ''}`));
  } else if (scheme === 'https' && report.forwardedProto === 'https') {
    checks.push(
      fail(
        'trust-proxy',
        `Express sees ${report.protocol} while the public URL is https and X-Forwarded-Proto says https: ${report.trustProxy ? "its 'trust proxy' does not trust this proxy" : "'trust proxy' is not set"}`,
        `app.set('trust proxy', ${report.trustProxy ? "<this proxy's address, or its hop count>" : "'loopback'"}) before passwordless() (the proxy's address or hop count if it is not on this machine), so that Express reads X-Forwarded-Proto and X-Forwarded-For`,
      ),
    );
  } else {
    checks.push(
      fail(
        'trust-proxy',
        `Express sees ${report.protocol} while the public URL is ${scheme}, and no X-Forwarded-Proto: ${scheme} reached it`,
        `make the proxy send X-Forwarded-Proto (with X-Forwarded-Host and X-Forwarded-For), and app.set('trust proxy', …) to it`,
      ),
    );
  }
  return checks;
}
