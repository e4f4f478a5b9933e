// The console's progressive script: passkey ceremonies (which need a script), confirmations and
// step-ups before destructive forms, copy buttons and the live app-id check. Pages work as plain
// forms without it, except for what WebAuthn itself needs.
const base = document.body.dataset.base || '/console';
let passkeysReady;

/** The browser module, set up from the console's own config route (loaded only when a page needs it). */
function passkeys() {
  passkeysReady ??= import(`${base}/passwordless-browser/passwordless.mjs`).then((m) => m.createPasskeys({ configUrl: `${base}/passwordless-config` }));
  return passkeysReady;
}

function showError(root, error) {
  const box = root.querySelector('[data-error]') || document.querySelector('[data-error]');
  if (!box) return;
  const problem = error && error.problem;
  box.textContent = problem ? `${problem.title || 'It did not work.'}${problem.detail ? ` ${problem.detail}` : ''}` : String((error && error.message) || error);
  box.hidden = false;
}

function go(path) {
  location.assign(path.startsWith(`${base}/`) ? path : `${base}/apps`);
}

// Destructive forms: confirm, then a passkey step-up, then send.
document.addEventListener('submit', async (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement)) return;
  if (form.dataset.confirm && !confirm(form.dataset.confirm)) {
    event.preventDefault();
    return;
  }
  if (form.dataset.stepUp === undefined || form.dataset.steppedUp) return;
  event.preventDefault();
  try {
    await (await passkeys()).stepUp({ purpose: form.dataset.stepUp || 'step-up' });
    form.dataset.steppedUp = 'yes';
    form.submit();
  } catch (error) {
    showError(document, error);
  }
});

document.addEventListener('click', async (event) => {
  const button = event.target instanceof Element ? event.target.closest('[data-copy]') : null;
  if (!button) return;
  const secret = button.parentElement.querySelector('[data-secret]');
  if (secret) {
    await navigator.clipboard.writeText(secret.textContent.trim());
    button.textContent = 'Copied';
  }
});

const pages = {
  async 'sign-in'() {
    const form = document.querySelector('[data-signin]');
    const next = form.dataset.next;
    const p = await passkeys();
    p.signIn({ autofill: true, onSignedIn: () => go(next), onError: (error) => showError(form, error) });
    form.querySelector('[data-passkey-signin]').addEventListener('click', async () => {
      try {
        const alias = form.querySelector('input[name=username]').value.trim();
        if (await p.signIn(alias ? { alias } : {})) go(next);
      } catch (error) {
        showError(form, error);
      }
    });
  },

  async invite() {
    const root = document.querySelector('[data-invite]');
    const token = new URLSearchParams(location.hash.slice(1)).get('token');
    const button = root.querySelector('[data-accept-invite]');
    if (!token) {
      button.disabled = true;
      showError(root, 'This page needs the whole invite link, as it was given to you.');
      return;
    }
    button.addEventListener('click', async () => {
      button.disabled = true;
      try {
        const config = await (await fetch(`${base}/passwordless-config`, { credentials: 'same-origin' })).json();
        const { Client } = await import(`${base}/passwordless-browser/passwordless-client.mjs`);
        const client = new Client({ apiUrl: config.apiUrl, apiKey: config.apiKey });
        const made = await client.register(token, 'Console');
        if (made.error) {
          const code = made.error.errorCode;
          throw { problem: code === 'token_already_used' ? { title: 'This invite was already used.', detail: 'Ask an operator for a new one.' } : code === 'invalid_token' || code === 'expired_token' ? { title: 'This invite is not valid any more.', detail: 'Ask an operator for a new one.' } : made.error };
        }
        const res = await fetch(`${base}/invite/complete`, { method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token: made.token }) });
        const answer = await res.json();
        if (!res.ok) throw { problem: answer };
        history.replaceState(null, '', location.pathname);
        go(answer.next);
      } catch (error) {
        button.disabled = false;
        showError(root, error);
      }
    });
  },

  async recover() {
    const root = document.querySelector('[data-recover]');
    if (!root) return;
    const p = await passkeys();
    const status = root.querySelector('[data-status]');
    if (p.recoveryPending()) {
      root.querySelector('[data-recover-request]').hidden = true;
      root.querySelector('[data-recover-form]').hidden = true;
      const confirmButton = root.querySelector('[data-recover-confirm]');
      confirmButton.hidden = false;
      confirmButton.addEventListener('click', async () => {
        try {
          await p.confirmRecovery();
          go(`${base}/account`);
        } catch (error) {
          status.hidden = false;
          status.textContent = (error.problem && error.problem.title) || 'The link did not work.';
        }
      });
      return;
    }
    root.querySelector('[data-recover-form]').addEventListener('submit', async (event) => {
      event.preventDefault();
      status.hidden = false;
      try {
        await p.recover(event.target.email.value.trim());
        status.textContent = 'If the address is an operator\'s, a link is on its way.';
      } catch (error) {
        status.textContent = (error.problem && `${error.problem.title}${error.problem.detail ? ` ${error.problem.detail}` : ''}`) || 'The request failed.';
      }
    });
  },

  async account() {
    const p = await passkeys();
    const passkeyRows = document.querySelector('[data-passkeys] tbody');
    const sessionRows = document.querySelector('[data-sessions] tbody');
    const cell = (text) => {
      const td = document.createElement('td');
      td.textContent = text;
      return td;
    };
    const action = (label, run) => {
      const td = document.createElement('td');
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = label;
      button.addEventListener('click', async () => {
        try {
          await run();
          await fill();
        } catch (error) {
          showError(document, error);
        }
      });
      td.append(button);
      return td;
    };
    const day = (value) => (value ? new Date(value).toISOString().slice(0, 16).replace('T', ' ') : '—');
    async function fill() {
      const { passkeys: list } = await p.passkeys();
      passkeyRows.replaceChildren(
        ...list.map((k) => {
          const tr = document.createElement('tr');
          tr.append(cell(k.name), cell(k.providerName || k.device || ''), cell(day(k.createdAt)), cell(day(k.lastUsedAt)), cell(k.synced ? 'yes' : 'no'), action('Delete', () => p.deletePasskey(k.id)));
          return tr;
        }),
      );
      const sessions = await p.sessions();
      sessionRows.replaceChildren(
        ...sessions.map((s) => {
          const tr = document.createElement('tr');
          tr.append(cell(s.device), cell(s.browser), cell(s.passkeyName || ''), cell(day(s.createdAt)), cell(day(s.lastSeenAt)), s.current ? cell('this one') : action('End', () => p.endSession(s.id)));
          return tr;
        }),
      );
    }
    document.querySelector('[data-add-passkey]').addEventListener('click', async () => {
      try {
        await p.addPasskey({ nickname: 'Console' });
        await fill();
      } catch (error) {
        showError(document, error);
      }
    });
    document.querySelector('[data-end-other-sessions]').addEventListener('click', async () => {
      try {
        await p.endOtherSessions();
        await fill();
      } catch (error) {
        showError(document, error);
      }
    });
    await fill();
  },

  apps() {
    const input = document.querySelector('[data-availability]');
    const status = document.querySelector('[data-availability-status]');
    if (!input || !status) return;
    let latest = 0;
    input.addEventListener('input', async () => {
      const asked = ++latest;
      const value = input.value.trim();
      if (!value) {
        status.textContent = '';
        return;
      }
      const answer = await (await fetch(`${input.dataset.availability}?appId=${encodeURIComponent(value)}`, { credentials: 'same-origin' })).json();
      if (asked !== latest) return;
      status.textContent = answer.available ? 'available' : answer.reason || 'taken';
      status.className = `status ${answer.available ? 'ok' : 'error'}`;
    });
  },
};

const run = pages[document.body.dataset.page];
if (run) {
  Promise.resolve(run()).catch((error) => showError(document, error));
}

