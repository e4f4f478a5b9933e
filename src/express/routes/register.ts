import type { RequestHandler } from 'express';
import { z } from 'zod';
import { MAX_ALIAS_LENGTH, MAX_ALIASES } from '../../shared/vocabulary';
import { HostProblem } from '../errorCodes';
import { asyncHandler, parseBody, sendJson } from '../http';
import { registerRequest } from '../registerRequest';
import { UserExistsError, type LocalUser } from '../userStore';
import type { RouteContext } from './context';


const signUpSchema = z.object({
  email: z
    .string({ message: 'must be a string' })
    .trim()
    .toLowerCase()
    .pipe(z.email({ message: 'must be an email address' }).max(254, 'must be at most 254 characters')),
  username: z.string({ message: 'must be a string' }).trim().min(1, 'is required').max(256, 'must be at most 256 characters'),
  displayName: z.string({ message: 'must be a string' }).trim().max(256, 'must be at most 256 characters').nullish(),
  aliases: z
    .array(z.string({ message: 'must contain strings' }).min(1, 'must not contain empty aliases').max(MAX_ALIAS_LENGTH, `must contain aliases of at most ${MAX_ALIAS_LENGTH} characters`))
    .max(MAX_ALIASES, `must contain at most ${MAX_ALIASES} aliases`)
    .nullish(),
});

/**
 * `POST /passwordless-register {email, username, displayName, aliases}`: creates the local user,
 * then asks the service for a registration token for it. If the service refuses (or cannot be
 * reached), the user is removed again, so no half-created account is left behind.
 */
export function registerRoute<U extends LocalUser>(ctx: RouteContext<U>): RequestHandler {
  return asyncHandler(async (req, res) => {
    const input = parseBody(signUpSchema, req.body);
    const aliases = [...new Set([...(ctx.emailAsAlias ? [input.email] : []), ...(input.aliases ?? [])])];
    if (aliases.length > MAX_ALIASES) {
      throw new HostProblem('validation_failed', `At most ${MAX_ALIASES} aliases, the email address included.`, {
        errors: { aliases: [`The aliases field must contain at most ${MAX_ALIASES - (ctx.emailAsAlias ? 1 : 0)} aliases besides the email address.`] },
      });
    }
    const displayName = input.displayName || input.username;
    let user: U;
    try {
      user = await ctx.users.create({ email: input.email, username: input.username, displayName });
    } catch (error) {
      if (error instanceof UserExistsError) throw new HostProblem('user_exists');
      throw error;
    }
    const userId = ctx.userIdOf(user);
    try {
      if (userId === undefined) throw new Error('The user store created a user without an id.');
      const { token } = await ctx.client.createRegisterToken(registerRequest(ctx.settings.register, { userId, username: input.username, displayName, aliases }));
      sendJson(res, 200, { token });
    } catch (error) {
      await removeQuietly(ctx, user, error);
      throw error;
    }
  });
}

async function removeQuietly<U extends LocalUser>(ctx: RouteContext<U>, user: U, cause: unknown): Promise<void> {
  try {
    await ctx.users.remove(user.id);
  } catch (removal) {
    ctx.logger.error({ err: removal, cause: (cause as Error)?.message, userId: user.id }, 'passwordless: could not remove a user whose registration failed');
  }
}
