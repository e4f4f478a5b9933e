/**
 * Starts OpenTelemetry when the OTEL_* variables ask for it, before the CLI loads the modules its
 * instrumentations patch (http, express, undici, pg). Imported by the CLI right after its
 * dependency check; a no-op without the variables.
 */
import { startTracing } from './server/telemetry/startTracing';

startTracing();
