// POST /api/upload stages a Cypher batch, an export or a CSV file; POST /api/graph/{graph}/upload runs a batch or
// restores an export, POST /api/graph/{graph}/load-csv loads a CSV (the FalkorDB Browser's paths).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { mapError } from '../../http/error-handler.js';
import { BadRequestError, HttpError } from '../../http/http-errors.js';
import { requireRole } from '../auth/roles.js';
import { principalOf } from '../context.js';
import { GraphParamsSchema } from '../graphs/schemas.js';
import { openEventStream, wantsEventStream } from '../../http/sse.js';
import { BatchStatementError, CsvRowsError, type ImportService } from './import-service.js';
import {
  BatchResultSchema,
  importEventStreamSchema,
  loadCsvBodySchema,
  LoadCsvResultSchema,
  RunBatchBodySchema,
  StagedFileParamsSchema,
  StagedFileSchema,
} from './schemas.js';

const tags = ['graphs'];

/** What the import routes call: the import service, and the URLs a CSV load may read (checked by the body schema). */
export interface ImportRouteDeps {
  imports: ImportService;
  csvUrlAllowlist: readonly string[];
}

export function importRoutes(scope: FastifyInstance, { imports, csvUrlAllowlist }: ImportRouteDeps): void {
  const routes = scope.withTypeProvider<ZodTypeProvider>();
  const writer = requireRole('Read-Write', 'uploading data');

  routes.post(
    '/api/upload',
    {
      preValidation: writer,
      // An upload is bounded by its size (UPLOAD_BYTES_MAX) and by REQUEST_TIMEOUT_MS for its bytes to arrive.
      config: { errorResponses: [409, 413, 415] },
      schema: {
        operationId: 'uploadFile',
        tags,
        summary: 'Stage a Cypher batch or a graph export (multipart/form-data, one file field)',
        description:
          "The file (`.cypher` or `.txt`: one statement per line, or statements ended by `;`; or `.dump`: an export of GET /api/graph/{graph}/export) is streamed to disk, at most UPLOAD_BYTES_MAX bytes (413 beyond), and kept for an hour for this token user only. One user's staged files take at most UPLOAD_STAGED_BYTES_PER_USER bytes together (413 beyond), everyone's UPLOAD_STAGED_BYTES_MAX (503 with `Retry-After` beyond); nothing of a refused file is kept. Run it with POST /api/graph/{graph}/upload.",
        consumes: ['multipart/form-data'],
        response: { 200: StagedFileSchema },
      },
    },
    async (request: FastifyRequest) => {
      if (!request.isMultipart()) throw new HttpError(415, 'Send the file as multipart/form-data with one file field');
      const part = await request.file();
      if (!part) throw new BadRequestError('No file in the upload: send multipart/form-data with one file field');
      return imports.stage(principalOf(request), part.filename, part.file, () => part.file.truncated);
    },
  );

  routes.get(
    '/api/upload/:id',
    {
      preValidation: writer,
      config: { errorResponses: [404] },
      schema: {
        operationId: 'readStagedFile',
        tags,
        summary: 'Read a staged file back',
        description:
          'The bytes of a file staged with POST /api/upload (its `path`), as an attachment, for the token user who staged it only: 404 for anyone else, and once the file was run or expired.',
        params: StagedFileParamsSchema,
        response: {
          200: {
            description: 'The staged file',
            content: {
              'application/octet-stream': {
                schema: z.string().meta({
                  format: 'binary',
                  description: 'The file as it was uploaded',
                  examples: ["CREATE (:Person {name: 'Ada', born: 1815});\n"],
                }),
              },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const file = await imports.readStaged(principalOf(request), request.params.id);
      return reply
        .header('content-type', 'application/octet-stream')
        .header('content-length', String(file.size))
        .header('content-disposition', `attachment; filename="${request.params.id}"`)
        .header('cache-control', 'private, no-store')
        .send(file.content as unknown as string); // a stream: Fastify pipes it as is, no serializer
    },
  );

  routes.post(
    '/api/graph/:graph/upload',
    {
      preValidation: writer,
      // A batch of any length runs under each statement's own timeout, not REQUEST_TIMEOUT_MS.
      config: { requestDeadline: false, errorResponses: [404, 409, 422, 429] },
      schema: {
        operationId: 'runUploadedBatch',
        tags,
        summary: 'Run a staged Cypher batch into the graph, or restore a staged export as a new graph',
        description:
          'A `.dump` is restored as this graph, which must not exist (409); an export whose origin graph still exists on this server is refused (409): FalkorDB crashes when it holds two copies of one graph. A restore is admitted before its file is read: one user runs at most RESTORES_PER_USER restores at once, and the exports of all restores under way take at most RESTORE_BYTES_MAX bytes (429 with `Retry-After` beyond; 413 for an export larger than RESTORE_BYTES_MAX); the export then streams from disk to the database. A restore waits (up to 5 s) until FalkorDB has finished freeing a graph deleted just before, which it does after `GRAPH.DELETE` answered; past that it is a 409 with `Retry-After`. A batch: each statement runs like a query (QUERY_TIMEOUT_MAX_MS, QUERY_ROWS_MAX, the LOAD CSV guard); the first that fails stops the batch with 422 naming its line (statements before it stay applied). With `Accept: text/event-stream`: `progress` events `{executed}`, then one `result` event `{message, executed}` or one `error` event `{message, status, code, line?}`.',
        params: GraphParamsSchema,
        body: RunBatchBodySchema,
        response: {
          200: {
            description: 'The batch ran',
            content: {
              'application/json': { schema: BatchResultSchema },
              'text/event-stream': {
                schema: importEventStreamSchema(
                  '{"executed":2}',
                  '{"executed":3,"message":"Executed 3 Cypher statement(s)."}',
                ),
              },
            },
          },
        },
      },
    },
    async (request, reply) =>
      runReportingProgress(request, reply, (onProgress, signal) =>
        imports.runBatch(principalOf(request), request.ip, request.params.graph, request.body, onProgress, signal),
      ),
  );

  routes.post(
    '/api/graph/:graph/load-csv',
    {
      preValidation: writer,
      // A file of any length runs under each batch's own timeout, not REQUEST_TIMEOUT_MS.
      config: { requestDeadline: false, errorResponses: [404, 409, 422, 429] },
      schema: {
        operationId: 'loadCsv',
        tags,
        summary: 'Load a staged CSV file into the graph, running Cypher for every row',
        description:
          'The file (a `.csv` staged with POST /api/upload) is read by this server, never by the database: `body` runs for every row as `UNWIND $rows AS row <body>`, a thousand rows per statement, each statement bounded like a query (QUERY_TIMEOUT_MAX_MS, QUERY_ROWS_MAX, the LOAD CSV guard). Values are strings, as LOAD CSV gives them. The first statement that fails, or a malformed record, stops the load with 422 naming its line (rows before it stay loaded). With `Accept: text/event-stream`: `progress` events `{loaded}`, then one `result` event `{message, loaded}` or one `error` event `{message, status, code, line?}`.',
        params: GraphParamsSchema,
        body: loadCsvBodySchema(csvUrlAllowlist),
        response: {
          200: {
            description: 'Every row was loaded',
            content: {
              'application/json': { schema: LoadCsvResultSchema },
              'text/event-stream': {
                schema: importEventStreamSchema('{"loaded":1000}', '{"loaded":1042,"message":"Loaded 1042 row(s)."}'),
              },
            },
          },
        },
      },
    },
    async (request, reply) =>
      runReportingProgress(request, reply, (onProgress, signal) =>
        imports.loadCsv(principalOf(request), request.ip, request.params.graph, request.body, onProgress, signal),
      ),
  );
}

/**
 * Runs a long import for a JSON client (its message when done; stopped when the client goes away) or, with
 * `Accept: text/event-stream`, as `progress` events then one `result` or `error` event.
 */
async function runReportingProgress<Progress, Result extends { message: string }>(
  request: FastifyRequest,
  reply: FastifyReply,
  run: (onProgress: ((progress: Progress) => void) | undefined, signal: AbortSignal) => Promise<Result>,
): Promise<FastifyReply | { message: string }> {
  if (!wantsEventStream(request)) {
    // A client that goes away stops the import at its next statement, as on a stream.
    const gone = new AbortController();
    const onClose = () => {
      if (!reply.raw.writableFinished) gone.abort();
    };
    reply.raw.once('close', onClose);
    try {
      const { message } = await run(undefined, gone.signal);
      return { message };
    } finally {
      reply.raw.off('close', onClose);
    }
  }
  const stream = openEventStream(request, reply);
  try {
    stream.send('result', await run((progress) => stream.send('progress', progress), stream.signal));
  } catch (error) {
    if (!stream.signal.aborted) {
      const mapped = mapError(error, 'browser');
      if (mapped.unexpected) request.log.error({ err: error }, 'import failed');
      const line = error instanceof BatchStatementError || error instanceof CsvRowsError ? { line: error.line } : {};
      stream.send('error', { message: mapped.message, status: mapped.statusCode, code: mapped.code, ...line });
    }
  } finally {
    stream.end();
  }
  return reply;
}
