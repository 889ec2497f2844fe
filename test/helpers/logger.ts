import { createLogger } from '../../src/infra/logger.ts';

/** Silent unless TEST_LOG_LEVEL asks: several tests provoke errors on purpose. */
export const testLogger = createLogger({ logLevel: (process.env.TEST_LOG_LEVEL as never) ?? 'silent' });
