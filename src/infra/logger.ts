import { pino, type Logger } from 'pino';
import type { Config } from '../config/config.ts';

export type { Logger };

export function createLogger(config: Pick<Config, 'LOG_LEVEL'>): Logger {
  return pino({
    level: config.LOG_LEVEL,
    base: { service: 'generation-gateway' },
    // Keys and secrets never reach the logs, whichever object carries them.
    redact: ['req.headers.authorization', 'req.headers["x-payment"]', 'req.headers["payment-signature"]'],
  });
}
