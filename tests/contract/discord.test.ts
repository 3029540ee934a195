// The Surface contract, run for Discord: fake Discord (REST + gateway) + the real adapter + Kazma.
import { discordDriver } from '../adapters/discord/contract-driver.ts';
import { surfaceContract } from './surface-contract.ts';

surfaceContract('discord (gateway)', discordDriver());
