import { z } from 'zod';

/**
 * `tracing`: OpenTelemetry spans are sent when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `…_TRACES_ENDPOINT`) is set;
 * this section only says what they may carry.
 */
export const tracingSchema = z
  .strictObject({
    /** Answers' text and tool arguments go into spans; off, only names, token counts and outcomes do. */
    content: z.boolean().default(false),
  })
  .prefault({});
