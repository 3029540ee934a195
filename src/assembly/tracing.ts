// OpenTelemetry's SDK, registered for the process when an OTLP endpoint is set (the standard variables):
// then the spans core/metrics/tracing.ts writes through the API are batched and sent over OTLP/HTTP (JSON).
// Unset, nothing is registered and every span is a no-op.
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { LoadedConfig } from '../core/config/index.ts';
import type { Logger } from '../core/log/index.ts';

/** Where spans go: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as it is, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`. */
function tracesEndpoint(env: LoadedConfig['env']): string | undefined {
  if (env.OTEL_SDK_DISABLED?.toLowerCase() === 'true') return undefined;
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  return base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined;
}

/**
 * Registers the tracer provider (and its async-context manager, so a turn's model and tool spans are its
 * children) when an endpoint is set; returns what flushes and stops it, or undefined when tracing is off.
 */
export function startTracing(o: {
  env: LoadedConfig['env'];
  role: string;
  logger: Logger;
}): (() => Promise<void>) | undefined {
  const url = tracesEndpoint(o.env);
  if (!url) return undefined;
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': o.env.OTEL_SERVICE_NAME || 'kazma', 'kazma.role': o.role }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }))],
  });
  provider.register();
  o.logger.info({ endpoint: url.replace(/\/\/[^@/]*@/, '//•••@') }, 'tracing: spans are sent over OTLP/HTTP');
  return () => provider.shutdown();
}
