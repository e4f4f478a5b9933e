import { z } from 'zod';
import { ERROR_CODES, statusesOf, type ErrorCode } from '../core/errorCodes';
import { PROBLEM_TYPE_BASE } from '../../shared/problem';

const CODES = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

/** RFC 9457 problem details plus `errorCode`, whose values are the one dictionary's codes. */
export const problemSchema = z.looseObject({
  type: z.string().describe(`${PROBLEM_TYPE_BASE}<errorCode>`),
  title: z.string(),
  status: z.number().int(),
  errorCode: z.enum(CODES).describe(CODES.map((code) => `${code} (${statusesOf(code).join(', ')}): ${ERROR_CODES[code].title}`).join('\n')),
  detail: z.string().optional(),
  errors: z.record(z.string(), z.array(z.string())).optional().describe('Validation problems: each bad field with its messages.'),
  traceId: z.string().optional().describe('The OpenTelemetry trace id of the request when the service traces, else the X-Request-Id of the answer.'),
});
