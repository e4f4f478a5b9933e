// The playground's script: the published browser client registers and signs in a test user with
// one of the app's public keys, as an app's own page would; the console mints the registration
// token and verifies what the client gets. Nothing here holds a secret, and nothing is stored.
const base = document.body.dataset.base || '/console';
const root = document.querySelector('[data-playground]');

if (root) {
  const { apiUrl, apiKey, csrf, tokenUrl, verifyUrl } = root.dataset;
  const errorBox = root.querySelector('[data-error]');
  const step = root.querySelector('[data-playground-step]');
  const result = root.querySelector('[data-playground-result]');
  const registerForm = root.querySelector('[data-playground-register]');
  const aliasForm = root.querySelector('[data-playground-alias]');
  const buttons = root.querySelectorAll('button');
  let clientReady;

  /** The published client, loaded once, with the app's public key (origin and RP ID: this page's). */
  const client = () => {
    clientReady ??= import(`${base}/passwordless-browser/passwordless-client.mjs`).then(({ Client }) => new Client({ apiUrl, apiKey }));
    return clientReady;
  };

  /** A refusal as one line: the API's or the console's problem (title, detail, code), else the client's message. */
  const describe = (problem) =>
    [problem.from === 'server' ? 'The API refused:' : '', problem.title || 'It did not work.', problem.detail || '', problem.errorCode ? `(${problem.errorCode})` : '']
      .filter(Boolean)
      .join(' ');

  /** A JSON action of the console, with the session's form token. */
  async function post(url, body) {
    const res = await fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', 'X-Console-Csrf': csrf },
      body: JSON.stringify(body),
    });
    const answer = /json/.test(res.headers.get('content-type') || '') ? await res.json() : null;
    if (!res.ok) throw { problem: answer || { title: res.status === 401 ? 'Your console session ended: sign in again.' : `The console answered ${res.status}.` } };
    return answer;
  }

  /** Runs one ceremony with every button off, and shows what went wrong. */
  async function attempt(what, run) {
    errorBox.hidden = true;
    buttons.forEach((button) => (button.disabled = true));
    step.textContent = `${what}…`;
    step.className = 'status';
    try {
      await run();
    } catch (error) {
      errorBox.textContent = error && error.problem ? describe(error.problem) : String((error && error.message) || error);
      errorBox.hidden = false;
      step.textContent = `${what}: it did not work.`;
      step.className = 'status error';
    } finally {
      buttons.forEach((button) => (button.disabled = false));
    }
  }

  /** The client's answer: a token, or its error (the API's problem, or the browser's). */
  const tokenOf = (answer) => {
    if (!answer || answer.error || !answer.token) throw { problem: (answer && answer.error) || { title: 'The client returned no token.' } };
    return answer.token;
  };

  /** Verified by the console in process, as the app's backend would; shown as JSON (text, so escaped). */
  async function verify(token, label) {
    const { result: verified } = await post(verifyUrl, { token });
    step.textContent = label;
    step.className = 'status ok';
    result.textContent = JSON.stringify(verified, null, 2);
  }

  registerForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const username = registerForm.username.value.trim();
    attempt('Registering a test user', async () => {
      const minted = await post(tokenUrl, { username });
      const token = tokenOf(await (await client()).register(minted.token, 'Console playground'));
      aliasForm.alias.value = minted.username;
      await verify(token, `Registered ${minted.username} as ${minted.userId}. The verify result:`);
    });
  });

  aliasForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const alias = aliasForm.alias.value.trim();
    attempt(`Signing in as ${alias}`, async () => {
      if (!alias) throw new Error('Enter the username of a test user.');
      await verify(tokenOf(await (await client()).signinWithAlias(alias)), `Signed in as ${alias}. The verify result:`);
    });
  });

  root.querySelector('[data-playground-discoverable]').addEventListener('click', () => {
    attempt('Signing in with a passkey you pick', async () => {
      await verify(tokenOf(await (await client()).signinWithDiscoverable()), 'Signed in with the passkey you picked. The verify result:');
    });
  });
}
