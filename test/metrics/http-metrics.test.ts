// An admission answered 201 (a `Prefer: wait` that saw the task end) is counted admitted, like a 202.
import { createServer } from 'node:http';
import express from 'express';
import { expect, it } from 'vitest';
import { httpMetrics } from '../../src/metrics/http-metrics.ts';
import { registry } from '../../src/metrics/metrics.ts';
import { listenLocally } from '../../harness/local-server.ts';
import { parseSamples, sumOf } from '../helpers/prometheus.ts';

const admittedCount = async () =>
  sumOf(parseSamples(await registry.metrics()), 'gateway_admissions_total', { outcome: 'admitted' });

it.each([202, 201])('a POST /generations answered %i counts one admission', async (status) => {
  const app = express();
  app.use(httpMetrics);
  app.post('/api/v1/generations', (_req, res) => {
    res.status(status).json({});
  });
  const server = createServer(app);
  const { url } = await listenLocally(server);
  try {
    const before = await admittedCount();
    const answer = await fetch(`${url}/api/v1/generations`, {
      method: 'POST',
    });
    expect(answer.status).toBe(status);
    await answer.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await admittedCount()) - before).toBe(1);
  } finally {
    server.close();
  }
});
