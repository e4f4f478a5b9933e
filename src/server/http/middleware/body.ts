import express, { type RequestHandler } from 'express';
import { ApiError } from '../../core/apiError';

const BODY_LIMIT_BYTES = 64 * 1024;

const JSON_TYPES = ['application/json', 'application/*+json'];
// Only ever called by jsonBody below, once `req.is(JSON_TYPES)` has said yes: the parser's own
// check of the type (a second parse of Content-Type, the same type-is call) would say the same.
const parseJson = express.json({ limit: BODY_LIMIT_BYTES, strict: true, type: () => true });

/**
 * JSON bodies only. A request that carries a body of another media type gets a clear 415 rather
 * than a confusing "field is required"; a request without a body is fine (freeze, delete, ...).
 */
export const jsonBody: RequestHandler = (req, res, next) => {
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  // Nothing to parse (GET, health probes, bodiless POSTs): the parser is not even entered.
  if (!hasBody) {
    next();
    return;
  }
  if (!req.is(JSON_TYPES)) {
    next(new ApiError('unsupported_media_type', { detail: `Send the body as JSON with 'Content-Type: application/json'.` }));
    return;
  }
  parseJson(req, res, next);
};

/** Maps body-parser failures onto problems; anything else passes through unchanged. */
function bodyParserProblem(error: unknown): ApiError | undefined {
  const type = (error as { type?: string } | null)?.type;
  switch (type) {
    case 'entity.parse.failed':
      return new ApiError('invalid_json', { detail: 'The request body could not be parsed as JSON.' });
    case 'entity.too.large':
      return new ApiError('payload_too_large', { detail: `Request bodies are limited to ${BODY_LIMIT_BYTES / 1024} KiB.` });
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ApiError('unsupported_media_type', { detail: 'Send the body as UTF-8 JSON.' });
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
    case 'stream.not.readable':
      return new ApiError('invalid_json', { detail: 'The request body could not be read.' });
    default:
      return undefined;
  }
}

/**
 * Any other error the framework raised about the request itself (it carries a 4xx status, like
 * the URIError for malformed percent-encoding in a path parameter) is the caller's mistake.
 */
export function requestProblem(error: unknown): ApiError | undefined {
  const fromBody = bodyParserProblem(error);
  if (fromBody) return fromBody;
  const status = (error as { status?: unknown; statusCode?: unknown } | null)?.status ?? (error as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status !== 'number' || status < 400 || status > 499) return undefined;
  if (error instanceof URIError) return new ApiError('bad_request', { detail: 'The path contains malformed percent-encoding.' });
  return new ApiError('bad_request');
}
