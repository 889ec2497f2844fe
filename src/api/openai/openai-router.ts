// /openai/v1: the gateway in OpenAI's API shapes, for the SDKs and apps written against them (the `openai` clients,
// the AI SDK's OpenAI-compatible provider, Open WebUI, …). A third adapter onto the endpoints, beside REST and MCP:
// each call runs them (adapter-call.ts) with the caller's gateway key as its Bearer, under the key's scopes, policies
// and budget, and a call that generates is a task like any other (charged, in the history, with its webhook).
import express, { type NextFunction, type Request, type Response, Router } from 'express';
import { adapterExchange } from '../adapter-call.ts';
import type { ApiContext, Endpoint } from '../endpoint.ts';
import { ApiError } from '../errors.ts';
import { openAiErrors, type ParamNames } from './openai-errors.ts';
import { chatCompletion, chatParams } from './openai-chat.ts';
import {
  editParams,
  imageEdit,
  imageParams,
  images,
  speech,
  speechParams,
  transcription,
  transcriptionParams,
} from './openai-media.ts';
import { listModels, retrieveModel } from './openai-models.ts';
import { createVideo, deleteVideo, listVideos, retrieveVideo, videoContent, videoParams } from './openai-videos.ts';

type Handler = (req: Request, res: Response) => Promise<unknown>;

export function openAiRouter(endpoints: Endpoint[], ctx: ApiContext, jsonBodyLimit: string): Router {
  const byOperation = new Map(endpoints.map((endpoint) => [endpoint.operationId, endpoint]));
  const exchangeOf = (req: Request, res: Response) => adapterExchange(byOperation, ctx, req, res);
  /** A route answering JSON (or, where it sent bytes itself, nothing more); refusals name OpenAI's fields. */
  const route =
    (handle: Handler, params: ParamNames = {}) =>
    async (req: Request, res: Response, next: NextFunction) => {
      res.locals.openAiParams = params;
      try {
        const answer = await handle(req, res);
        if (answer !== undefined) res.status(200).json(answer);
      } catch (error) {
        next(error);
      }
    };
  const router = Router();
  // Every call names its gateway key, as OpenAI's API asks for its own: the catalog too.
  router.use((req, _res, next) => {
    ctx.authenticate(req.headers, 'any').then(() => next(), next);
  });
  router.use(express.json({ limit: jsonBodyLimit }));
  router.get(
    '/models',
    route((req, res) => listModels(exchangeOf(req, res))),
  );
  router.get(
    '/models/*id',
    route((req, res) => retrieveModel(exchangeOf(req, res), pathId(req))),
  );
  router.post(
    '/audio/speech',
    route((req, res) => speech(exchangeOf(req, res), res, req.body), speechParams),
  );
  router.post(
    '/images/generations',
    route((req, res) => images(exchangeOf(req, res), res, req.body), imageParams),
  );
  router.post(
    '/videos',
    route((req, res) => createVideo(exchangeOf(req, res), req, res), videoParams),
  );
  router.get(
    '/videos',
    route((req, res) => listVideos(exchangeOf(req, res), req.query)),
  );
  router.get(
    '/videos/:id',
    route((req, res) => retrieveVideo(exchangeOf(req, res), req.params.id as string)),
  );
  router.get(
    '/videos/:id/content',
    route((req, res) => videoContent(exchangeOf(req, res), res, req.params.id as string, req.query.variant)),
  );
  router.delete(
    '/videos/:id',
    route((req, res) => deleteVideo(exchangeOf(req, res), req.params.id as string)),
  );
  router.post(
    '/images/edits',
    route((req, res) => imageEdit(exchangeOf(req, res), req, res), editParams),
  );
  router.post(
    '/audio/transcriptions',
    route((req, res) => transcription(exchangeOf(req, res), req, res), transcriptionParams),
  );
  router.post(
    '/chat/completions',
    route((req, res) => chatCompletion(exchangeOf(req, res), res, req.body), chatParams),
  );
  router.use((req) => {
    throw new ApiError('not_found', `No route for ${req.method} /openai/v1${req.path}.`);
  });
  router.use(openAiErrors);
  return router;
}

/** A model id has a slash (`local/espeak`): the path's rest. */
const pathId = (req: Request) => (req.params as { id: string[] }).id.join('/');
