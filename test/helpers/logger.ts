import { createLogger } from '../../src/logger.ts';

/** Logs only failures, so a red test shows why without burying green runs in noise. */
export const testLogger = createLogger({ LOG_LEVEL: process.env.TEST_LOG_LEVEL as never ?? 'error' });
