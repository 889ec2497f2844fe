// Runs in each test process before its tests: keep the Temporal SDK's own logging to warnings.
import { DefaultLogger, Runtime } from '@temporalio/worker';

try {
  Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: [] });
} catch {
  // Already installed in this process (a previous file in the same fork).
}
