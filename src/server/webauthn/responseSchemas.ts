import { z } from 'zod';
import { withoutSecretExtensionResults } from './withoutSecretExtensionResults';
import { MAX_ORIGIN_LENGTH, MAX_RPID_LENGTH, boundedString, ciObject, looseString } from '../core/validation';

export const base64UrlString = z.string().regex(/^[A-Za-z0-9_-]+={0,2}$/, 'must be base64url');

/** The fields every ceremony request from the browser client carries besides the credential. */
export const ceremonyRequestFields = {
  session: looseString().nullish(),
  origin: boundedString(MAX_ORIGIN_LENGTH).nullish(),
  rpid: boundedString(MAX_RPID_LENGTH).nullish(),
};

/**
 * A PublicKeyCredential as the browser client serialises it, with the ceremony-specific
 * `response` object. 1.2.x clients send `clientExtensionResults`; 1.1.x send `extensions`.
 */
export function publicKeyCredentialSchema<T extends z.ZodRawShape>(responseShape: T) {
  return ciObject({
    id: base64UrlString,
    rawId: base64UrlString,
    type: z.literal('public-key', { message: "must be 'public-key'" }),
    response: ciObject(responseShape),
    authenticatorAttachment: z.string().nullish(),
    // PRF outputs and large blobs are dropped on arrival: never read, stored or logged.
    clientExtensionResults: z.record(z.string(), z.unknown()).transform(withoutSecretExtensionResults).nullish(),
    extensions: z.record(z.string(), z.unknown()).transform(withoutSecretExtensionResults).nullish(),
  });
}
