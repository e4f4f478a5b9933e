// A signed-in operator session of the service's console (issue 36), made as an operator makes one:
// the CLI's invite link, a passkey registered with its token through the public API (the bench's
// software authenticator), and the console's invite completion, whose answer carries the session
// cookie. The load generator then sends that cookie with each console page it asks for.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { attestation } from './authenticator.mjs';

async function postJson(url, body, headers = {}) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${new URL(url).pathname}: ${res.status} ${await res.text()}`);
  return res;
}

/** The `Cookie` header of a new operator's session on the console at `serviceUrl` (PUBLIC_URL `origin`). */
export async function consoleSession({ root, env, serviceUrl, origin, email }) {
  const printed = execFileSync(process.execPath, [join(root, 'dist', 'cli.js'), 'console', 'invite', email], { cwd: root, env: { PATH: process.env.PATH, ...env, LOG_LEVEL: 'warn' }, encoding: 'utf8' });
  const token = /\/console\/invite#token=(\S+)/.exec(printed)?.[1];
  if (!token) throw new Error(`console invite printed no link: ${printed}`);
  const config = await (await fetch(`${serviceUrl}/console/passwordless-config`)).json();
  const rpId = new URL(origin).hostname;
  const begin = await (await postJson(`${serviceUrl}/register/begin`, { token, RPID: rpId, Origin: origin }, { ApiKey: config.apiKey })).json();
  const response = attestation({ challenge: begin.data.challenge, rpId, origin });
  const made = await (await postJson(`${serviceUrl}/register/complete`, { session: begin.session, response, nickname: 'bench', RPID: rpId, Origin: origin }, { ApiKey: config.apiKey })).json();
  const signedIn = await postJson(`${serviceUrl}/console/invite/complete`, { token: made.token });
  const cookie = signedIn.headers.getSetCookie().map((line) => line.split(';')[0]).join('; ');
  if (!cookie) throw new Error('the console answered no session cookie');
  return cookie;
}
