import { explainOriginRefusal } from '../../shared/explainOriginRefusal';
import { ApiError } from '../core/apiError';

export interface CeremonyOrigin {
  /** Normalised origin the assertion must carry (`scheme://host[:port]`, or an android: origin). */
  origin: string;
  rpId: string;
}

/** A web origin (`https://host[:port]`) or an Android app origin, normalised for comparison. */
export function normaliseAllowedOrigin(value: string): string | undefined {
  if (/^android:apk-key-hash:[A-Za-z0-9_\-+/=]+$/.test(value)) return value;
  try {
    const url = new URL(value);
    if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.pathname.length > 1 || url.search || url.hash) return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}

const RP_ID = /^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))*$/;

/**
 * Decides which origin and RP ID a ceremony will demand, from what the browser client declares
 * (`Origin`, `RPID`) and the app's `allowedOrigins`:
 * - the origin must be a web origin or an `android:apk-key-hash:` origin;
 * - for a web origin, the RP ID must be its host or a parent domain of it (as browsers enforce);
 * - with a non-empty allow-list, the origin must be on it (else `origin_not_allowed`).
 */
export function resolveCeremonyOrigin(declaredOrigin: string | undefined, declaredRpId: string | undefined, allowedOrigins: string[]): CeremonyOrigin {
  if (!declaredOrigin) throw new ApiError('missing_origin');
  const origin = normaliseAllowedOrigin(declaredOrigin.trim());
  if (origin === undefined) {
    throw new ApiError('validation_failed', {
      detail: 'Origin must be a web origin such as https://example.com, or an android:apk-key-hash: origin.',
      extras: { errors: { origin: ['The origin field must be a web origin or an android:apk-key-hash: origin.'] } },
    });
  }
  const isWeb = !origin.startsWith('android:');
  const rpId = (declaredRpId ?? (isWeb ? new URL(origin).hostname : '')).trim().toLowerCase();
  if (!rpId || !(RP_ID.test(rpId) || rpId === 'localhost')) {
    throw new ApiError('validation_failed', {
      detail: 'RPID must be a domain name such as example.com.',
      extras: { errors: { rpid: ['The rpid field must be a domain name.'] } },
    });
  }
  if (isWeb) {
    const host = new URL(origin).hostname;
    if (host !== rpId && !host.endsWith(`.${rpId}`)) {
      throw new ApiError('origin_not_allowed', {
        detail: `The RP ID '${rpId}' is not the host of the origin or a parent domain of it.`,
        logged: originRefusalLog(allowedOrigins, origin, rpId),
      });
    }
  }
  if (allowedOrigins.length > 0 && !allowedOrigins.includes(origin)) {
    throw new ApiError('origin_not_allowed', {
      detail: `The origin '${origin}' is not in this application's allowedOrigins.`,
      logged: originRefusalLog(allowedOrigins, origin, rpId),
    });
  }
  return { origin, rpId };
}

/** The log line's part of a refused origin or RP ID: expected, received and the likely cause. */
function originRefusalLog(allowedOrigins: string[], origin: string, rpId: string): Record<string, unknown> {
  const { cause, hint } = explainOriginRefusal({ expected: allowedOrigins, received: origin, rpId, setting: "the app's allowedOrigins" });
  return { refused: 'origin', expectedOrigins: allowedOrigins, receivedOrigin: origin, rpId, cause, hint };
}
