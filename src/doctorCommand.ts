import { parseArgs } from 'node:util';
import { formatDoctorReport } from './express/doctor/formatDoctorReport';
import { runDoctor } from './express/doctor/runDoctor';
import { resolveSettings, type PasswordlessSettingsInput } from './express/settings';

export const DOCTOR_USAGE = `Usage: passwordless-selfhost doctor [options]

Checks a deployment from outside with the Express middleware's settings: one line per check, each
failure with its fix; exit code 1 on any (docs/operations.md, "doctor").

  --url <https://app.example.com>  the host's public URL: also check how the public reaches it
                                   (its Origins, trust proxy) through its diagnostic route
  --rp-id <domain>                 the RP ID your pages use (or Passwordless__RpId; default: the
                                   first origin's host)
  --no-verify-email                the host runs with verifyEmail off
  --recovery                       the host mails recovery links
  --doctor-path <path>             where the host serves its diagnostic route
                                   (default /passwordless-doctor)
  --api-url <url>, --api-key <key>, --api-secret <secret>, --origins <o1,o2>, --public-url <url>
                                   the middleware's settings, instead of Passwordless__ApiUrl,
                                   __ApiKey, __ApiSecret, __Origins, __PublicUrl
  -h, --help                       print this help`;

/**
 * `passwordless-selfhost doctor`: the middleware's settings from flags or the environment (as the
 * host reads them), the checks of {@link runDoctor}, one line each on stdout. Resolves whether
 * every check passed (`--help` prints the usage and passes); a missing or malformed setting
 * throws its PasswordlessSettingsError.
 */
export async function doctorCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      help: { type: 'boolean', short: 'h' },
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
  if (values.help) {
    process.stdout.write(`${DOCTOR_USAGE}\n`);
    return true;
  }
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
