import { pino, type Logger } from 'pino';
import type { ServerConfig } from '../config/config.ts';

export type { Logger };

export function createLogger(server: Pick<ServerConfig, 'logLevel'>): Logger {
  return pino({
    level: server.logLevel,
    base: { service: 'generation-gateway' },
    // Keys and secrets never reach the logs, whichever object carries them.
    redact: ['req.headers.authorization', 'req.headers["x-payment"]', 'req.headers["payment-signature"]'],
  });
}
