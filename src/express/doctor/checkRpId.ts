import { rpIdFitsHost } from '../../shared/rpIdFitsHost';
import { fail, pass, type DoctorCheck } from './doctorCheck';

/**
 * The RP ID must be every origin's host or a registrable suffix of it, or passkeys made on one
 * origin are refused on another (and the browser refuses the ceremony outright).
 */
export function checkRpId(rpId: string, origins: readonly string[]): DoctorCheck {
  const misfits = origins.filter((origin) => !rpIdFitsHost(rpId, new URL(origin).hostname));
  if (misfits.length === 0) return pass('rp-id', `the RP ID '${rpId}' fits every origin (${origins.join(', ')})`);
  const hosts = misfits.map((origin) => new URL(origin).hostname);
  return fail(
    'rp-id',
    `the RP ID '${rpId}' is neither the host nor a parent domain of ${misfits.join(', ')}`,
    `use an RP ID that every origin's host ends with (such as '${hosts[0]}'), in the page (createPasskeys({ rpId })) and here (--rp-id or Passwordless__RpId)`,
  );
}
