import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { PROBLEM_CONTENT_TYPE } from '../../shared/problem';
import { ApiError } from '../core/apiError';

function problemFor(code: string | undefined): ApiError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError('headers_too_large', { detail: 'The URL and headers together are limited to 16 KiB.' });
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new ApiError('payload_too_large');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError('request_timeout');
    default:
      return new ApiError('bad_request', { detail: 'The request is not valid HTTP/1.1.' });
  }
}

/**
 * The server's `clientError` handler. Requests Node cannot parse (a URL or headers over its limit,
 * malformed framing, a timed-out request) never reach Express; Node would answer them with a bare
 * status line. This answers them as problems too, under the same guard as Node's own handler:
 * only while no response on this connection has started.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const problem = problemFor(error.code);
  const body = JSON.stringify(problem.toProblem());
  socket.end(
    [
      `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}`,
      `Content-Type: ${PROBLEM_CONTENT_TYPE}`,
      `Content-Length: ${Buffer.byteLength(body)}`,
      'X-Content-Type-Options: nosniff',
      'Cache-Control: no-store',
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
}
