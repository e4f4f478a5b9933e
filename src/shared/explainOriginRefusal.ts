import { rpIdFitsHost } from './rpIdFitsHost';

/** The most likely reason an origin or RP ID was refused, most specific first. */
export type OriginRefusalCause =
  | 'no_origin'
  | 'rp_id_not_registrable_suffix'
  | 'rp_id_mismatch'
  | 'trust_proxy_missing'
  | 'scheme_mismatch'
  | 'port_mismatch'
  | 'origin_not_listed';

export interface OriginRefusalFacts {
  /** The origins that would have been accepted (empty: none was expected, e.g. a page's own origin). */
  expected: readonly string[];
  /** The origin the ceremony or token carried. */
  received: string | null;
  /** The RP ID the ceremony declared, when there was one. */
  rpId?: string;
  /** The authenticator signed for another RP ID than the ceremony's (only its hash is known). */
  rpIdHashMismatch?: boolean;
  /** How the refused request reached Express: `req.protocol` and the X-Forwarded-Proto header's first value. */
  request?: { protocol: string; forwardedProto?: string };
  /** The setting that lists the expected origins, named in the hint. Default `the expected origins`. */
  setting?: string;
}

export interface OriginRefusalExplanation {
  cause: OriginRefusalCause;
  /** One sentence: what differs and what to change. */
  hint: string;
}

interface WebOrigin {
  scheme: string;
  host: string;
  /** The port, the scheme's default spelled out. */
  port: string;
}

function webOrigin(value: string): WebOrigin | undefined {
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    return { scheme: url.protocol.slice(0, -1), host: url.hostname, port: url.port || (url.protocol === 'https:' ? '443' : '80') };
  } catch {
    return undefined;
  }
}

/** `http` or `https` when the header says one of them (the first of a list); anything else is ignored. */
function forwardedScheme(value: string | undefined): string | undefined {
  const first = value?.split(',')[0].trim().toLowerCase();
  return first === 'http' || first === 'https' ? first : undefined;
}

/**
 * Why an origin or RP ID was refused, from what was expected and what came: an RP ID that is not
 * the origin's host or a registrable suffix of it; Express behind a TLS-terminating proxy without
 * `trust proxy` (it sees http while X-Forwarded-Proto says https); the same host on another scheme
 * or port; or an origin nobody listed. Pure: the caller logs the result, never answers with it.
 */
export function explainOriginRefusal(facts: OriginRefusalFacts): OriginRefusalExplanation {
  const setting = facts.setting ?? 'the expected origins';
  const received = facts.received ? webOrigin(facts.received) : undefined;
  if (!facts.received) return { cause: 'no_origin', hint: 'The ceremony carried no origin: it was not made by a browser on one of your pages.' };
  if (received && facts.rpId !== undefined && !rpIdFitsHost(facts.rpId, received.host)) {
    return {
      cause: 'rp_id_not_registrable_suffix',
      hint: `The RP ID '${facts.rpId}' is neither the host '${received.host}' nor a parent domain of it: use '${received.host}' or a domain it ends with (createPasskeys({ rpId }) in the page).`,
    };
  }
  if (facts.rpIdHashMismatch) {
    return {
      cause: 'rp_id_mismatch',
      hint: `The authenticator signed for another RP ID than '${facts.rpId ?? 'the ceremony’s'}': the page must ask for the same RP ID at begin and in navigator.credentials.`,
    };
  }
  const request = facts.request;
  const forwarded = forwardedScheme(request?.forwardedProto);
  const proxiedWithoutTrust = request !== undefined && forwarded !== undefined && forwarded !== request.protocol;
  const sameHost = received ? facts.expected.map(webOrigin).filter((o): o is WebOrigin => o !== undefined && o.host === received.host) : [];
  if (received && proxiedWithoutTrust && forwarded === received.scheme && sameHost.some((o) => o.scheme === request.protocol)) {
    return {
      cause: 'trust_proxy_missing',
      hint: `Express sees ${request.protocol} while the proxy says ${forwarded} (X-Forwarded-Proto): set app.set('trust proxy', …) to your proxy (e.g. 'loopback' or 1), and list ${facts.received} in ${setting}.`,
    };
  }
  if (received) {
    const otherScheme = sameHost.find((o) => o.scheme !== received.scheme);
    if (otherScheme && !sameHost.some((o) => o.scheme === received.scheme)) {
      return {
        cause: 'scheme_mismatch',
        hint: `${setting} has ${otherScheme.scheme}://${received.host} but the page is on ${received.scheme}: list ${facts.received} in ${setting}.`,
      };
    }
    const otherPort = sameHost.find((o) => o.scheme === received.scheme && o.port !== received.port);
    if (otherPort) {
      return {
        cause: 'port_mismatch',
        hint: `${setting} has ${received.host} on port ${otherPort.port} but the page is on port ${received.port}: list ${facts.received} in ${setting} (the port is part of an origin).`,
      };
    }
  }
  return { cause: 'origin_not_listed', hint: `${facts.received} is not in ${setting}: add it there if your pages are served from it.` };
}
