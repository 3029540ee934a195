// The Surface contract, run for Telegram in polling mode: fake Bot API + the real adapter + Kazma.
import { telegramDriver } from '../adapters/telegram/contract-driver.ts';
import { surfaceContract } from './surface-contract.ts';

surfaceContract('telegram (polling)', telegramDriver({ mode: 'polling' }));
