// The node and V8 flags the operator started this process with: node's command line and NODE_OPTIONS.
// Kazma sets some V8 flags itself at run time (the young generation, the embedded database's
// WebAssembly tier) and leaves each alone when the operator gave one of their own.

/** node's command-line flags and NODE_OPTIONS, as one string to search. */
export function operatorNodeFlags(): string {
  return [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' ');
}
