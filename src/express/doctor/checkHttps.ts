import { fail, pass, type DoctorCheck } from './doctorCheck';
import { isLoopbackHost } from './isLoopbackHost';

/** Every address a browser or the host uses must be HTTPS, except on this machine (localhost). */
export function checkHttps(addresses: readonly { setting: string; url: string }[]): DoctorCheck {
  const plain = addresses.filter(({ url }) => {
    const parsed = new URL(url);
    return parsed.protocol !== 'https:' && !isLoopbackHost(parsed.hostname);
  });
  if (plain.length === 0) return pass('https', `every address is HTTPS or on this machine (${addresses.map((a) => a.url).join(', ')})`);
  return fail(
    'https',
    `served over plain HTTP outside localhost: ${plain.map((a) => `${a.setting} ${a.url}`).join(', ')}`,
    'serve these over HTTPS (a TLS-terminating proxy in front is fine) and write them with https://',
  );
}
