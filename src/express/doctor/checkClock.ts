import { fail, pass, type DoctorCheck } from './doctorCheck';

/** The service's verify tokens live this long (its default); registration tokens live Register__Expiration. */
const VERIFY_TOKEN_SECONDS = 120;

/**
 * The host dates registration tokens with its own clock (`expiresAt` = now + Register__Expiration)
 * and the service checks them, and verify tokens, with its own: clocks further apart than half the
 * shortest lifetime leave tokens born half spent, or refused as already expired.
 */
export function checkClock(skewMs: number, registerExpirationSeconds: number): DoctorCheck {
  const limitSeconds = Math.min(registerExpirationSeconds, VERIFY_TOKEN_SECONDS) / 2;
  const seconds = Math.round(Math.abs(skewMs) / 1000);
  const way = skewMs > 0 ? 'ahead of' : 'behind';
  if (Math.abs(skewMs) / 1000 <= limitSeconds) return pass('clock', `this clock and the service's agree within ${seconds} s (limit ${limitSeconds} s, half the shortest token lifetime)`);
  return fail('clock', `the service's clock is ${seconds} s ${way} this one, more than ${limitSeconds} s (half the shortest token lifetime)`, 'synchronise both machines with NTP (e.g. systemd-timesyncd or chrony)');
}
