import { parseArgs } from 'node:util';
import { formatDoctorReport } from './express/doctor/formatDoctorReport';
import { runDoctor } from './express/doctor/runDoctor';
import { resolveSettings, type PasswordlessSettingsInput } from './express/settings';

/**
 * `passwordless-selfhost doctor`: the middleware's settings from flags or the environment (as the
 * host reads them), the checks of {@link runDoctor}, one line each on stdout. Resolves whether
 * every check passed; a missing or malformed setting throws its PasswordlessSettingsError.
 */
export async function doctorCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      url: { type: 'string' },
      'rp-id': { type: 'string' },
      'api-url': { type: 'string' },
      'api-key': { type: 'string' },
      'api-secret': { type: 'string' },
      origins: { type: 'string' },
      'public-url': { type: 'string' },
      'no-verify-email': { type: 'boolean' },
      recovery: { type: 'boolean' },
      'doctor-path': { type: 'string' },
    },
  });
  const input: PasswordlessSettingsInput = {
    apiUrl: values['api-url'],
    apiKey: values['api-key'],
    apiSecret: values['api-secret'],
    origins: values.origins,
    publicUrl: values['public-url'],
  };
  const settings = resolveSettings(input, env);
  if (values.url !== undefined) {
    const url = new URL(values.url);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError('--url must be an http:// or https:// URL');
  }
  const checks = await runDoctor({
    settings,
    url: values.url,
    rpId: values['rp-id'] ?? env.Passwordless__RpId ?? undefined,
    mailedLinks: { verifyEmail: values['no-verify-email'] !== true, recovery: values.recovery === true },
    doctorPath: values['doctor-path'],
  });
  process.stdout.write(formatDoctorReport(checks));
  return checks.every((check) => check.ok);
}
