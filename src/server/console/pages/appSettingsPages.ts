import { ApiError } from '../../core/apiError';
import { ciEnum, ciObject } from '../../core/validation';
import { keyScopesSchema } from '../../services/apps/keyScopesSchema';
import { PLANS, featuresPatchSchema } from '../../services/apps/apps';
import { addAuthConfigSchema, deleteAuthConfigSchema, editAuthConfigSchema } from '../../services/authConfigs';
import type { ConsoleContext } from '../consoleContext';
import { setNotice } from '../consoleNotice';
import { by, type ConsoleRoutes } from '../consoleRoutes';
import { html } from '../html';
import { layout } from '../layout';
import { appOf } from './appOf';
import { authConfigFromForm } from './authConfigFromForm';
import { authConfigsSection } from './authConfigsSection';
import { changedFeatures } from './changedFeatures';
import { deletionSection } from './deletionSection';
import { featuresFromForm } from './featuresFromForm';
import { featuresSection } from './featuresSection';
import { formList } from './formList';
import { keysSection } from './keysSection';
import { parseForm } from './parseForm';

/** Which kind of key a create form asks for. */
const keyKindSchema = ciObject({ kind: ciEnum(['public', 'secret']) });
/** The plan form: the management API's own field. */
const planSchema = ciObject({ plan: ciEnum(PLANS) });
/** A key named by a form: the service judges the id (four hex characters, of this app). */
const keyIdOf = (body: Record<string, unknown>) => (typeof body.keyId === 'string' ? body.keyId : '');

/** How a changed feature reads in the console's log: values, except the origins, which are counted. */
const describeChange = ([field, value]: [string, unknown]) => (Array.isArray(value) ? `${field} (${value.length} entries)` : `${field} = ${JSON.stringify(value)}`);

/**
 * An app's settings on one page: keys, features and plan, authentication configurations, deletion.
 * Each change is a form posting to its own action, read with the API's schemas, performed by the
 * same services as the API, and recorded in the console's log with the operator.
 */
export function appSettingsPages(ctx: ConsoleContext, routes: ConsoleRoutes): void {
  const { base, services } = ctx;
  const settingsPath = (appId: string) => `${base}/apps/${appId}`;
  const back = (appId: string, section: string) => `${settingsPath(appId)}#${section}`;

  routes.page(`${base}/apps/:appId`, async (req, res, operator) => {
    const { appId, features } = await appOf(ctx, req);
    // The apps are few (each one made by an operator); the list is the one place their deletion state is read.
    const [keys, configs, apps] = await Promise.all([services.apps.listKeys(appId), services.authConfigs.list(appId), services.apps.list()]);
    const app = apps.find((candidate) => candidate.appId === appId);
    const path = settingsPath(appId);
    const body = html`<p class="error" data-error hidden></p>
${keysSection(req, path, keys)}
${featuresSection(req, path, features)}
${authConfigsSection(req, path, configs)}
${deletionSection(req, path, appId, { adminEmail: app?.adminEmail ?? '', deleteAt: app?.deleteAt ?? null })}`;
    res.type('html').send(layout(ctx, req, { title: `Settings of ${appId}`, body, operator, appId, page: 'app-settings' }));
  });

  // Keys ------------------------------------------------------------------------------------------

  routes.action(`${base}/apps/:appId/keys/create`, {}, async (req, res, operator) => {
    const { appId } = await appOf(ctx, req);
    const { kind } = parseForm(keyKindSchema, req.body);
    const { scopes } = parseForm(keyScopesSchema(kind), { scopes: formList(req.body.scopes) });
    const value = await services.apps.createKey(appId, kind, scopes, by(operator));
    const keyId = value.slice(-4);
    routes.record(operator, appId, `A ${kind} key (${keyId}) was created with the scopes ${scopes.join(', ')}.`);
    // Shown in this answer only (never in a notice, the session or a URL): the service keeps a digest of a secret.
    const body = html`<p class="notice ok">The ${kind} key <code>${keyId}</code> was created with the scopes ${scopes.join(', ')}.${kind === 'secret' && html` It is shown <strong>only now</strong>: store it in your backend's configuration.`}</p>
<p class="secret"><code data-secret data-new-key>${value}</code> <button type="button" data-copy>Copy</button></p>
<p><a href="${back(appId, 'keys')}">Back to the settings</a></p>`;
    res.type('html').send(layout(ctx, req, { title: 'Key created', body, operator, appId }));
  });

  for (const locked of [true, false]) {
    routes.action(`${base}/apps/:appId/keys/${locked ? 'lock' : 'unlock'}`, {}, async (req, res, operator) => {
      const { appId } = await appOf(ctx, req);
      const keyId = keyIdOf(req.body);
      await services.apps.setKeyLocked(appId, keyId, locked, by(operator));
      routes.record(operator, appId, `The key ${keyId} was ${locked ? 'locked' : 'unlocked'}.`);
      setNotice(req, { kind: 'ok', text: `The key ${keyId} was ${locked ? 'locked: it is refused until it is unlocked' : 'unlocked'}.` });
      res.redirect(303, back(appId, 'keys'));
    });
  }

  routes.action(`${base}/apps/:appId/keys/delete`, { stepUp: true }, async (req, res, operator) => {
    const { appId } = await appOf(ctx, req);
    const keyId = keyIdOf(req.body);
    await services.apps.deleteKey(appId, keyId, by(operator));
    routes.record(operator, appId, `The key ${keyId} was deleted.`);
    setNotice(req, { kind: 'ok', text: `The key ${keyId} was deleted.` });
    res.redirect(303, back(appId, 'keys'));
  });

  // Features and plan -----------------------------------------------------------------------------

  routes.action(`${base}/apps/:appId/features`, {}, async (req, res, operator) => {
    const { appId, features } = await appOf(ctx, req);
    const changes = changedFeatures(features, parseForm(featuresPatchSchema, featuresFromForm(req.body)));
    const described = Object.entries(changes).map(describeChange);
    if (described.length > 0) {
      await services.apps.setFeatures(appId, changes, by(operator));
      routes.record(operator, appId, `Features changed: ${described.join(', ')}.`);
    }
    setNotice(req, { kind: 'ok', text: described.length > 0 ? `Saved: ${Object.keys(changes).join(', ')}.` : 'Nothing was changed.' });
    res.redirect(303, back(appId, 'features'));
  });

  routes.action(`${base}/apps/:appId/plan`, { stepUp: true }, async (req, res, operator) => {
    const { appId, features } = await appOf(ctx, req);
    const { plan } = parseForm(planSchema, req.body);
    if (plan !== features.plan) {
      await services.apps.setFeatures(appId, { plan }, by(operator));
      routes.record(operator, appId, `The plan was changed from ${features.plan} to ${plan}.`);
    }
    setNotice(req, { kind: 'ok', text: plan === features.plan ? `The plan is ${plan} already.` : `The plan is now ${plan}.` });
    res.redirect(303, back(appId, 'plan'));
  });

  // Authentication configurations -----------------------------------------------------------------

  routes.action(`${base}/apps/:appId/auth-configs/add`, {}, async (req, res, operator) => {
    const { appId } = await appOf(ctx, req);
    const input = parseForm(addAuthConfigSchema, authConfigFromForm(req.body, by(operator)));
    await services.authConfigs.add(appId, input, by(operator));
    routes.record(operator, appId, `The authentication configuration ${input.purpose} was added.`);
    setNotice(req, { kind: 'ok', text: `The configuration ${input.purpose} was added.` });
    res.redirect(303, back(appId, 'auth-configs'));
  });

  routes.action(`${base}/apps/:appId/auth-configs/edit`, {}, async (req, res, operator) => {
    const { appId } = await appOf(ctx, req);
    const input = parseForm(editAuthConfigSchema, authConfigFromForm(req.body, by(operator)));
    await services.authConfigs.edit(appId, input, by(operator));
    routes.record(operator, appId, `The authentication configuration ${input.purpose} was edited.`);
    setNotice(req, { kind: 'ok', text: `The configuration ${input.purpose} was saved.` });
    res.redirect(303, back(appId, 'auth-configs'));
  });

  routes.action(`${base}/apps/:appId/auth-configs/delete`, {}, async (req, res, operator) => {
    const { appId } = await appOf(ctx, req);
    const input = parseForm(deleteAuthConfigSchema, { purpose: req.body.purpose, performedBy: by(operator) });
    await services.authConfigs.remove(appId, input, by(operator));
    routes.record(operator, appId, `The authentication configuration ${input.purpose} was deleted.`);
    setNotice(req, { kind: 'ok', text: `The configuration ${input.purpose} was deleted.` });
    res.redirect(303, back(appId, 'auth-configs'));
  });

  // Deletion --------------------------------------------------------------------------------------

  routes.action(`${base}/apps/:appId/deletion/schedule`, {}, async (req, res, operator) => {
    const { appId } = await appOf(ctx, req);
    const scheduled = await services.deletions.schedule(appId, by(operator));
    routes.record(operator, appId, `The deletion was scheduled: data deleted at ${scheduled.deleteAt}.`);
    setNotice(req, { kind: 'ok', text: scheduled.message });
    res.redirect(303, back(appId, 'deletion'));
  });

  routes.action(`${base}/apps/:appId/deletion/cancel`, {}, async (req, res, operator) => {
    const { appId } = await appOf(ctx, req);
    const cancelled = await services.deletions.cancel(appId, by(operator));
    routes.record(operator, appId, 'The scheduled deletion was cancelled.');
    setNotice(req, { kind: 'ok', text: cancelled.message });
    res.redirect(303, back(appId, 'deletion'));
  });

  routes.action(`${base}/apps/:appId/delete`, { stepUp: true }, async (req, res, operator) => {
    const { appId } = await appOf(ctx, req);
    // The id typed again: a form sent by mistake (or without the page's script and its confirm) deletes nothing.
    if (req.body.confirmAppId !== appId) throw new ApiError('validation_failed', { detail: `Type the app's id, ${appId}, to confirm its deletion.` });
    await services.apps.delete(appId, by(operator));
    routes.record(operator, appId, 'The app and all of its data were deleted.');
    setNotice(req, { kind: 'ok', text: `The app ${appId} and all of its data were deleted.` });
    res.redirect(303, `${base}/apps`);
  });
}
