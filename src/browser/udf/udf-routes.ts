// /api/udf and /api/udf/{lib}: user-defined function libraries (Admin only), at the FalkorDB Browser's paths.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { requireRole } from '../auth/roles.js';
import { principalOf } from '../context.js';
import {
  LibraryListSchema,
  type LibraryEntry,
  type LibraryEntryWithCode,
  LibraryParamsSchema,
  LibraryReadSchema,
  LoadLibraryBodySchema,
  UdfFlushedSchema,
  UdfLoadedSchema,
  UdfDeletedSchema,
} from './schemas.js';
import type { UdfService } from './udf-service.js';

const tags = ['udf'];

/** What the UDF routes call: the UDF service. */
export interface UdfRouteDeps {
  udf: UdfService;
}

export function udfRoutes(scope: FastifyInstance, { udf }: UdfRouteDeps): void {
  const routes = scope.withTypeProvider<ZodTypeProvider>();
  const admin = requireRole('Admin', 'managing UDF libraries');
  const unsupported = 'A server whose graph module predates GRAPH.UDF (4.16.0) answers 400.';

  routes.get(
    '/api/udf',
    {
      preValidation: admin,
      schema: {
        operationId: 'listUdfLibraries',
        tags,
        summary: 'UDF libraries and their functions',
        description: `\`GRAPH.UDF LIST\`. ${unsupported}`,
        response: { 200: LibraryListSchema },
      },
    },
    async (request) => ({
      result: (await udf.list(principalOf(request))).map(({ name, functions }): LibraryEntry => [
        'library_name',
        name,
        'functions',
        functions,
      ]),
    }),
  );

  routes.delete(
    '/api/udf',
    {
      preValidation: admin,
      schema: {
        operationId: 'flushUdfLibraries',
        tags,
        summary: 'Remove every UDF library',
        description: `\`GRAPH.UDF FLUSH\`. ${unsupported}`,
        response: { 200: UdfFlushedSchema },
      },
    },
    async (request) => {
      await udf.flush(principalOf(request));
      return { result: 'UDFs flushed successfully' as const };
    },
  );

  routes.get(
    '/api/udf/:lib',
    {
      preValidation: admin,
      config: { errorResponses: [404] },
      schema: {
        operationId: 'getUdfLibrary',
        tags,
        summary: 'One UDF library with its code',
        description: `\`GRAPH.UDF LIST <lib> WITHCODE\`; 404 when there is no such library. ${unsupported}`,
        params: LibraryParamsSchema,
        response: { 200: LibraryReadSchema },
      },
    },
    async (request) => {
      const { name, functions, code } = await udf.read(principalOf(request), request.params.lib);
      const entry: LibraryEntryWithCode = ['library_name', name, 'functions', functions, 'library_code', code];
      return { result: [entry] };
    },
  );

  routes.post(
    '/api/udf/:lib',
    {
      preValidation: admin,
      config: { errorResponses: [409] },
      schema: {
        operationId: 'loadUdfLibrary',
        tags,
        summary: 'Load a UDF library from JavaScript source',
        description: `\`GRAPH.UDF LOAD [REPLACE] <lib> <code>\`. The source is at most 256 KiB; FalkorDB's evaluation error answers 400, an existing library 409 unless \`replace\` is true. ${unsupported}`,
        params: LibraryParamsSchema,
        body: LoadLibraryBodySchema,
        response: { 200: UdfLoadedSchema },
      },
    },
    async (request) => {
      await udf.load(principalOf(request), request.params.lib, request.body.code, request.body.replace);
      return { message: 'UDF created successfully' };
    },
  );

  routes.delete(
    '/api/udf/:lib',
    {
      preValidation: admin,
      config: { errorResponses: [404] },
      schema: {
        operationId: 'deleteUdfLibrary',
        tags,
        summary: 'Remove one UDF library',
        description: `\`GRAPH.UDF DELETE <lib>\`; 404 when there is no such library. ${unsupported}`,
        params: LibraryParamsSchema,
        response: { 200: UdfDeletedSchema },
      },
    },
    async (request) => {
      await udf.remove(principalOf(request), request.params.lib);
      return { message: 'UDF deleted successfully' };
    },
  );
}
