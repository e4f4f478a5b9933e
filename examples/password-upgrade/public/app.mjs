// The page: password sign-in as the app always had it; right after it, a passkey for the user
// (silently where the browser can make one on its own, else a one-click offer); passkey sign-in
// from the email field's autofill; the user's passkeys and where they are signed in.
import { createPasskeys } from '/passwordless-browser/passwordless.mjs';

const $ = (name) => document.querySelector(`[data-test="${name}"]`);
const passkeys = await createPasskeys();

function status(text) {
  $('status').textContent = text;
}

function show(section) {
  for (const id of ['signed-in', 'signed-out']) document.getElementById(id).hidden = id !== section;
}

async function act(action) {
  try {
    await action();
  } catch (error) {
    status(error.message);
  }
}

function on(name, action) {
  $(name).addEventListener('click', () => act(action));
}

const when = (iso) => (iso ? new Date(iso).toLocaleString() : 'never');

function item(name, meta, ...controls) {
  const li = document.createElement('li');
  li.append(Object.assign(document.createElement('div'), { className: 'name', textContent: name }), Object.assign(document.createElement('div'), { className: 'meta', textContent: meta }), ...controls);
  return li;
}

function button(test, text, action) {
  const b = Object.assign(document.createElement('button'), { textContent: text });
  b.dataset.test = test;
  b.addEventListener('click', () => act(action));
  return b;
}

function passkeyItem(passkey) {
  const li = item(
    `${passkey.name || 'Passkey'} · ${passkey.providerName ?? 'unknown provider'}`,
    `${passkey.synced ? 'Synced' : 'This device only'} · ${passkey.device} · added ${when(passkey.createdAt)} · last used ${when(passkey.lastUsedAt)}`,
    button('delete-passkey', 'Delete', async () => {
      await passkeys.deletePasskey(passkey.id);
      status('Passkey deleted.');
      await refresh();
    }),
  );
  li.dataset.test = 'passkey';
  li.dataset.id = passkey.id;
  return li;
}

function sessionItem(session) {
  const how = session.passkeyName ? `passkey “${session.passkeyName}”` : 'password';
  const controls = session.current
    ? [Object.assign(document.createElement('span'), { className: 'current', textContent: 'This browser' })]
    : [
        button('end-session', 'Sign out there', async () => {
          await passkeys.endSession(session.id);
          status('Signed out there.');
          await refresh();
        }),
      ];
  const li = item(`${session.browser ?? 'A browser'} on ${session.device ?? 'a device'}`, `signed in with ${how} · since ${when(session.createdAt)} · last seen ${when(session.lastSeenAt)}`, ...controls);
  li.dataset.test = 'session';
  li.dataset.id = session.id;
  if (session.current) li.dataset.current = 'true';
  return li;
}

/** Shows who is signed in, their passkeys and sessions; answers the passkey list, or undefined when signed out. */
async function refresh() {
  const me = await fetch('/api/me');
  if (!me.ok) {
    $('me').textContent = 'Signed out';
    show('signed-out');
    return undefined;
  }
  const user = await me.json();
  $('me').textContent = `Signed in as ${user.displayName} <${user.email}>`;
  show('signed-in');
  const { passkeys: list } = await passkeys.passkeys();
  $('passkeys').replaceChildren(...list.map(passkeyItem));
  $('no-passkeys').hidden = list.length > 0;
  const sessions = await passkeys.sessions();
  $('sessions').replaceChildren(...sessions.map(sessionItem));
  $('end-other-sessions').hidden = sessions.length < 2;
  return list;
}

function showOffer(visible) {
  $('upgrade-offer').hidden = !visible;
}

/**
 * Right after a password sign-in: where the browser can make a passkey without asking (conditional
 * create), the browser module does so; where it cannot (`unsupported`) or would not (`declined`:
 * its password manager did not vouch for this sign-in), a user without a passkey is offered one.
 */
async function offerPasskey(list) {
  // What happened, for scripts that drive the page (the browser test waits for it).
  const done = (outcome) => (document.body.dataset.upgrade = outcome);
  const outcome = await passkeys.upgrade().catch((error) => {
    done('failed');
    throw error;
  });
  if (outcome === 'created') {
    status('Signed in with your password. Your browser saved a passkey: next time, pick it from the email field.');
    await refresh();
    return done('created');
  }
  // 'not-offered': the host offers none to this session.
  if (outcome !== 'unsupported' && outcome !== 'declined') return done('not-offered');
  showOffer(list.length === 0);
  return done(list.length === 0 ? 'offered' : 'not-offered');
}

/** The passkeys of the email field's autofill, offered for as long as the page is signed out. */
function offerAutofill() {
  passkeys
    .signIn({
      autofill: true,
      onSignedIn: (user) => act(async () => {
        status(`Signed in as ${user.email} with a passkey.`);
        await refresh();
      }),
      onError: (error) => status(error.message),
    })
    .catch((error) => status(error.message));
}

$('password-form').addEventListener('submit', (event) => {
  event.preventDefault();
  act(async () => {
    const res = await fetch('/login', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: $('email').value.trim(), password: $('password').value }),
    });
    const answer = await res.json();
    if (!res.ok) {
      status(answer.title);
      return;
    }
    // The autofill request has no more to do on this page.
    passkeys.stopAutofill();
    delete document.body.dataset.upgrade;
    $('password').value = '';
    status(`Signed in as ${answer.email} with your password.`);
    const list = await refresh();
    await offerPasskey(list ?? []);
  });
});

on('use-passkey', async () => {
  await passkeys.addPasskey({ nickname: `Passkey ${new Date().toLocaleDateString()}` });
  showOffer(false);
  status('Passkey saved: next time, pick it from the email field.');
  await refresh();
});
on('not-now', async () => showOffer(false));
on('end-other-sessions', async () => {
  await passkeys.endOtherSessions();
  status('Signed out everywhere else.');
  await refresh();
});
on('logout', async () => {
  await passkeys.signOut();
  showOffer(false);
  status('Signed out.');
  if (!(await refresh())) offerAutofill();
});

if (!(await refresh())) offerAutofill();
