import { inSpan, tracingOn } from '../../core/telemetry/tracing';
import { RegistrationService } from './registration';
import { SigninService } from './signin';
import { VerificationService } from './verification';

/** Each ceremony step that gets a span of its own, by class and method: the span's name. */
const STEPS: [object, Record<string, string>][] = [
  [RegistrationService.prototype, { createToken: 'ceremony register token', begin: 'ceremony register begin', complete: 'ceremony register complete' }],
  [SigninService.prototype, { begin: 'ceremony signin begin', complete: 'ceremony signin complete' }],
  [VerificationService.prototype, { verify: 'ceremony signin verify', generate: 'ceremony token generate' }],
];

let traced = false;

/**
 * With tracing on, wraps each ceremony step's method in a span (`ceremony signin verify`, …)
 * carrying the app id only; the steps' database statements, signature check and counter update
 * are its children. Done once per process, on the classes, so the services stay as they are
 * written and cost nothing extra with tracing off (nothing is wrapped then).
 */
export function traceCeremonySteps(): void {
  if (traced || !tracingOn()) return;
  traced = true;
  for (const [prototype, methods] of STEPS) {
    for (const [method, name] of Object.entries(methods)) {
      const target = prototype as Record<string, unknown>;
      const original = target[method] as (this: unknown, appId: string, ...rest: unknown[]) => Promise<unknown>;
      target[method] = function traced(this: unknown, appId: string, ...rest: unknown[]) {
        return inSpan(name, () => original.call(this, appId, ...rest), { attributes: () => ({ 'passwordless.app_id': appId }) });
      };
    }
  }
}
