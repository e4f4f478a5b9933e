import { randomUUID } from 'node:crypto';
import { ApiError } from '../core/apiError';
import { isBareEmailAddress } from '../core/isBareEmailAddress';
import type { Services } from '../services';
import { registerTokenSchema } from '../services/ceremonies/registration';
import { CONSOLE_APP_ID } from './consoleAppId';
import { ensureConsoleApp } from './ensureConsoleApp';
import { normaliseEmail } from './operatorStore';

/** How long an invite link works. */
export const INVITE_LIFETIME_MS = 24 * 3600_000;

export interface Invite {
  email: string;
  /** `PUBLIC_URL/console/invite#token=…`: the token stays in the fragment, out of every server's log. */
  link: string;
  expiresAt: string;
}

/**
 * An invite for `email` to become an operator: a registration token of the console app, for a new
 * userId with the address as its plain-text alias, that lives 24 hours and, as every registration
 * token, registers one passkey (a second use is refused by /register/begin). Refused for an
 * address that is an operator already.
 */
export async function inviteOperator(services: Services, input: { email: string; by: string; now?: number }): Promise<Invite> {
  const email = normaliseEmail(input.email);
  if (!isBareEmailAddress(email)) throw new ApiError('validation_failed', { detail: 'An operator is invited by one bare email address (name@example.com).', extras: { errors: { email: ['must be one bare email address'] } } });
  await ensureConsoleApp(services, { origin: new URL(services.config.publicUrl).origin, adminEmail: email });
  if ((await services.aliases.userIdOf(CONSOLE_APP_ID, email)) !== undefined) {
    throw new ApiError('operator_exists', { detail: 'It can add a passkey from its own account page.' });
  }
  // `now`: the services' clock where a test injects one.
  const expiresAt = new Date((input.now ?? Date.now()) + INVITE_LIFETIME_MS).toISOString();
  const token = await services.registration.createToken(
    CONSOLE_APP_ID,
    registerTokenSchema.parse({ userId: randomUUID(), username: email, displayName: email, aliases: [email], aliasHashing: false, discoverable: true, userVerification: 'required', expiresAt }),
  );
  services.events.record(CONSOLE_APP_ID, { type: 'ConsoleOperatorInvited', message: 'An operator was invited.', subject: 'operators', performedBy: input.by });
  return { email, link: `${services.config.publicUrl}/console/invite#token=${encodeURIComponent(token)}`, expiresAt };
}
