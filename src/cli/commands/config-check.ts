import { parseArgs } from 'node:util';
import { CHAT_PLATFORM_IDS } from '../../core/surface/index.ts';
import { maskText } from '../../core/secrets/index.ts';
import { CONFIG_OPTION, EXIT, explain, loadOrExplain, type Subcommand } from '../common.ts';

export const configCheck: Subcommand = {
  summary: 'validate kazma.yaml and print what it resolves to',
  usage: `Usage: kazma config check [--config FILE]

Reads FILE (default: $KAZMA_CONFIG or ./kazma.yaml), substitutes \${VAR} and \${VAR:-default} from the
environment and validates it. Prints each problem as "key.path: reason" and exits 2 on error, 0 when valid.`,
  async run(args) {
    const { values } = parseArgs({ args, options: CONFIG_OPTION });
    try {
      const { config, path, warnings = [] } = loadOrExplain(values.config);
      for (const warning of warnings) console.log(`warning: ${warning}`);
      const enabled = CHAT_PLATFORM_IDS.filter((p) => config[p].enabled);
      console.log(`kazma.yaml is valid (${path ?? 'no file: defaults'})`);
      console.log(`  data_dir:  ${config.data_dir}`);
      console.log(`  database:  ${config.database.url ? maskText(config.database.url) : 'embedded PGlite'}`);
      console.log(
        `  redis:     ${config.redis.url ? maskText(config.redis.url) : '127.0.0.1:6379 or a private redis-server'}`,
      );
      console.log(
        `  model:     ${config.model.name ? `${config.model.provider}:${config.model.name}` : 'not configured'}`,
      );
      console.log(`  platforms: ${enabled.length ? enabled.join(', ') : 'none enabled'}`);
      return EXIT.ok;
    } catch (error) {
      return explain(error);
    }
  },
};
