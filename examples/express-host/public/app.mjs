// The page's part: the published browser client creates and uses passkeys; the host's own routes
// (added by passwordless-selfhost/express) turn them into a signed-in session.
import { Client } from '/vendor/passwordless.mjs';

const $ = (name) => document.querySelector(`[data-test="${name}"]`);
const config = await (await fetch('/passwordless-config')).json();
const passkeys = new Client({ apiUrl: config.apiUrl, apiKey: config.apiKey });

function status(text) {
  $('status').textContent = text;
}

async function post(path, body = {}) {
  const res = await fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const answer = res.status === 204 ? {} : await res.json();
  if (!res.ok) throw new Error(answer.detail ? `${answer.title} ${answer.detail}` : answer.title ?? `HTTP ${res.status}`);
  return answer;
}

/** The browser client resolves with `{token}` or `{error}`. */
function tokenOf(result) {
  if (result.error) throw new Error(result.error.detail ? `${result.error.title} ${result.error.detail}` : result.error.title);
  return result.token;
}

async function signInWith(verifyToken) {
  const user = await post('/passwordless-login', { token: verifyToken });
  status(`Signed in as ${user.email}.`);
  await refresh();
}

async function refresh() {
  const me = await fetch('/api/me');
  const signedIn = me.ok;
  document.getElementById('signed-in').hidden = !signedIn;
  document.getElementById('signed-out').hidden = signedIn;
  if (!signedIn) {
    $('me').textContent = 'Signed out';
    $('passkeys').replaceChildren();
    return;
  }
  const [user, list] = await Promise.all([me.json(), fetch('/api/passkeys').then((res) => res.json())]);
  $('me').textContent = `Signed in as ${user.displayName} <${user.email}>`;
  $('passkeys').replaceChildren(
    ...list.map((p) => {
      const item = document.createElement('li');
      item.dataset.test = 'passkey';
      item.textContent = `${p.nickname || 'Passkey'} (${p.device}), added ${new Date(p.createdAt).toLocaleString()}`;
      return item;
    }),
  );
}

function on(name, action) {
  $(name).addEventListener('click', async () => {
    try {
      await action();
    } catch (error) {
      status(error.message);
    }
  });
}

on('register', async () => {
  const email = $('email').value.trim().toLowerCase();
  await post('/passwordless-register', { email, username: $('username').value.trim() || email, displayName: $('displayName').value.trim() });
  status(`Check your mail: we sent a link to ${email} to finish signing up.`);
});

/** The sign-up link lands here with its values in the fragment: verify, then make the passkey. */
async function finishSignUp() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const signup = fragment.get('passwordless-signup');
  if (!signup) return;
  history.replaceState(null, '', location.pathname);
  const { token, email } = await post('/passwordless-verify-email', { signup, token: fragment.get('token') });
  status('Creating your passkey…');
  await signInWith(tokenOf(await passkeys.register(token, email)));
}
on('login', async () => signInWith(tokenOf(await passkeys.signinWithDiscoverable())));
on('login-alias', async () => signInWith(tokenOf(await passkeys.signinWithAlias($('email').value.trim().toLowerCase()))));
on('add-passkey', async () => {
  const { token } = await post('/passwordless-add-credential', { displayName: null });
  tokenOf(await passkeys.register(token, `Passkey ${new Date().toLocaleDateString()}`));
  status('Passkey added.');
  await refresh();
});
on('logout', async () => {
  await post('/passwordless-logout');
  status('Signed out.');
  await refresh();
});

await refresh();
finishSignUp().catch((error) => status(error.message));
