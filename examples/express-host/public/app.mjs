// The page's part, on the browser module the middleware serves (passwordless-selfhost/browser):
// sign-up by email (the mailed link's page confirms the names), autofill sign-in, the passkey list with provider names, rename, add and delete
// (with the step-up they need, by themselves), where you are signed in (ending a session there),
// recovery by email and sign-out.
import { createPasskeys } from '/passwordless-browser/passwordless.mjs';

const $ = (name, root = document) => root.querySelector(`[data-test="${name}"]`);
const passkeys = await createPasskeys();

function status(text) {
  $('status').textContent = text;
}

function show(section) {
  for (const id of ['signed-in', 'signed-out', 'recovery', 'confirm-signup']) document.getElementById(id).hidden = id !== section;
}

function passkeyItem(passkey) {
  const item = document.createElement('li');
  item.dataset.test = 'passkey';
  item.dataset.id = passkey.id;
  const name = Object.assign(document.createElement('input'), { value: passkey.name || 'Passkey', maxLength: 64 });
  name.dataset.test = 'passkey-name';
  name.setAttribute('aria-label', 'Passkey name');
  const provider = Object.assign(document.createElement('span'), { className: 'provider', textContent: passkey.providerName ?? 'Unknown provider' });
  provider.dataset.test = 'passkey-provider';
  const meta = Object.assign(document.createElement('div'), {
    className: 'meta',
    textContent: `${passkey.synced ? 'Synced' : 'This device only'} · ${passkey.device} · added ${new Date(passkey.createdAt).toLocaleDateString()} · last used ${new Date(passkey.lastUsedAt).toLocaleString()}`,
  });
  const rename = Object.assign(document.createElement('button'), { textContent: 'Rename' });
  rename.dataset.test = 'rename';
  rename.addEventListener('click', () =>
    act(async () => {
      await passkeys.renamePasskey(passkey.id, name.value.trim());
      status('Passkey renamed.');
      await refresh();
    }),
  );
  const remove = Object.assign(document.createElement('button'), { textContent: 'Delete' });
  remove.dataset.test = 'delete';
  remove.addEventListener('click', () =>
    act(async () => {
      await passkeys.deletePasskey(passkey.id);
      status('Passkey deleted.');
      await refresh();
    }),
  );
  item.append(provider, ' ', name, meta, rename, remove);
  return item;
}

function sessionItem(session) {
  const item = document.createElement('li');
  item.dataset.test = 'session';
  item.dataset.current = String(session.current);
  const where = Object.assign(document.createElement('strong'), { textContent: `${session.browser} on ${session.device}` });
  const meta = Object.assign(document.createElement('div'), {
    className: 'meta',
    textContent: `${session.passkeyName ? `passkey: ${session.passkeyName}` : 'no passkey'} · signed in ${new Date(session.createdAt).toLocaleString()} · last seen ${new Date(session.lastSeenAt).toLocaleString()}`,
  });
  if (session.current) {
    item.append(where, ' (this browser)', meta);
    return item;
  }
  const end = Object.assign(document.createElement('button'), { textContent: 'Sign out there' });
  end.dataset.test = 'end-session';
  end.addEventListener('click', () =>
    act(async () => {
      await passkeys.endSession(session.id);
      status('That session is signed out.');
      await refresh();
    }),
  );
  item.append(where, meta, end);
  return item;
}

/** The list is read when its panel is open (each read counts against the host's per-address budget). */
async function refreshSessions() {
  if (!$('sessions-panel').open) return;
  try {
    $('sessions').replaceChildren(...(await passkeys.sessions()).map(sessionItem));
    $('sessions-error').textContent = '';
  } catch (error) {
    $('sessions').replaceChildren();
    $('sessions-error').textContent = `Your sessions could not be listed: ${error.message}`;
  }
}

async function refresh() {
  const me = await fetch('/api/me');
  if (!me.ok) {
    $('me').textContent = 'Signed out';
    $('passkeys').replaceChildren();
    show(passkeys.recoveryPending() ? 'recovery' : passkeys.signUpPending() ? 'confirm-signup' : 'signed-out');
    return false;
  }
  const user = await me.json();
  $('me').textContent = `Signed in as ${user.displayName} <${user.email}>`;
  show('signed-in');
  // Signed in is signed in, even when the list cannot be had: say why beside it.
  try {
    const { passkeys: list } = await passkeys.passkeys();
    $('passkeys').replaceChildren(...list.map(passkeyItem));
    $('passkeys-error').textContent = '';
  } catch (error) {
    $('passkeys').replaceChildren();
    $('passkeys-error').textContent = `Your passkeys could not be listed: ${error.message}`;
  }
  await refreshSessions();
  return true;
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

async function signedIn(user) {
  status(`Signed in as ${user.email}.`);
  await refresh();
}

/** `?autofill=off` leaves the sign-in field to the buttons (to try them where a passkey manager answers at once). */
const autofill = new URLSearchParams(location.search).get('autofill') !== 'off';

/** The passkeys of the autofill menu of the sign-in field, offered for as long as the page is open. */
function offerAutofill() {
  if (!autofill) return;
  passkeys.signIn({ autofill: true, onSignedIn: (user) => act(() => signedIn(user)), onError: (error) => status(error.message) }).catch((error) => status(error.message));
}

on('register', async () => {
  const email = $('email').value.trim().toLowerCase();
  const result = await passkeys.signUp({ email, username: $('username').value.trim() || email, displayName: $('displayName').value.trim() });
  // One link per address in a few minutes, whoever asks: if one came already, it is the one to follow (it asks for the names again).
  if (result.verificationSent) status(`Check your mail: a link to finish signing up is on its way to ${email} (or there already, if one was asked for minutes ago).`);
  else await signedIn(result.user);
});
/** A button's own sign-in ends the autofill request; if it fails, autofill is offered again. */
async function explicitSignIn(options) {
  try {
    await signedIn(await passkeys.signIn(options));
  } catch (error) {
    offerAutofill();
    throw error;
  }
}
on('login', () => explicitSignIn());
on('login-alias', () => explicitSignIn({ alias: $('signin-username').value.trim().toLowerCase() }));
on('add-passkey', async () => {
  await passkeys.addPasskey({ nickname: `Passkey ${new Date().toLocaleDateString()}` });
  status('Passkey added.');
  await refresh();
});
$('sessions-panel').addEventListener('toggle', () => act(refreshSessions));
on('end-other-sessions', async () => {
  const ended = await passkeys.endOtherSessions();
  status(ended === 1 ? 'Signed out of 1 other session.' : `Signed out of ${ended} other sessions.`);
  await refresh();
});
on('recover', async () => {
  await passkeys.recover($('recover-email').value.trim().toLowerCase());
  status('If that address has an account, a sign-in link is on its way.');
});
on('recover-confirm', async () => {
  const user = await passkeys.confirmRecovery();
  status(`Signed in as ${user.email} with the recovery link. Add a passkey to sign in next time.`);
  await refresh();
});
on('logout', async () => {
  await passkeys.signOut();
  status('Signed out.');
  if (!(await refresh())) offerAutofill();
});

/**
 * The page a sign-up link opened: the names the sign-up was started with, for the owner of the
 * mailbox to confirm or change (whoever started it), before the passkey is made.
 */
function offerSignUpConfirmation(pending) {
  $('confirm-email').textContent = pending.email;
  $('confirm-username').value = pending.username;
  $('confirm-displayName').value = pending.displayName;
}
on('confirm-signup', async () => {
  const pending = passkeys.signUpPending();
  const user = await passkeys.finishSignUp({ username: $('confirm-username').value.trim() || pending?.email || '', displayName: $('confirm-displayName').value.trim() });
  if (user) await signedIn(user);
});

if (passkeys.accountExists()) status('You already have an account with this address: sign in with your passkey, or ask for a sign-in link below.');
if (!(await refresh())) {
  const pending = passkeys.signUpPending();
  if (pending) offerSignUpConfirmation(pending);
  else if (!passkeys.recoveryPending()) offerAutofill();
}
