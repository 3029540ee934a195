// The Surface contract, run for Slack over the Events API: fake Slack + the real adapter + Kazma.
import { slackDriver } from '../adapters/slack/contract-driver.ts';
import { surfaceContract } from './surface-contract.ts';

surfaceContract('slack (events API)', slackDriver());
