// What a platform adapter needs of the core, as one type: the core passes itself, tests pass a stub,
// and no adapter keeps its own copy of the shape.
import type { Accepted } from './pipeline-types.ts';
import type { InboundEvent, Surface } from '../../surface/index.ts';

/**
 * What a platform adapter uses of the core. The core has it all; a test may pass a stub.
 *
 * @example
 * const core: PlatformCoreLink = {
 *   pipeline: { accept: async () => ({ status: 'accepted', done: Promise.resolve('handled') }) },
 *   attachSurface: () => () => {},
 *   commands: { list: () => [] },
 * };
 */
export interface PlatformCoreLink {
  /** Records an inbound event, then handles it; see InboundPipeline.accept. */
  pipeline: { accept(event: InboundEvent): Promise<Accepted> };
  /** Registers the adapter's Surface for its ChatRef prefix; returns the detach. */
  attachSurface(surface: Surface): () => void;
  /** The chat commands, for a platform's command menu (Telegram's `/` menu, Discord's slash commands). */
  commands: { list(): ReadonlyArray<{ name: string; summary: string }> };
}
