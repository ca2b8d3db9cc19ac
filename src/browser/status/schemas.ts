// Response shape of GET /api/status.
import { z } from 'zod';

export const StatusSchema = z.object({ status: z.literal('online') });
