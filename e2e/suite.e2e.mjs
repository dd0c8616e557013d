// The end-to-end suite: `npm run test:e2e` (also a step of `make test`). One real stack for every
// flow (PostgreSQL, Redis, anvil with the test USDC, gunicorn, a Celery worker), started in
// `before` and stopped by PID in `after`, also when a flow fails.
import { after, before, describe } from 'node:test';

import { state } from './lib/suite.mjs';
import { startStack, stopStack } from './lib/stack.mjs';
import * as maps from './flows/maps.mjs';
import * as notFound from './flows/not-found.mjs';
import * as walletConnect from './flows/wallet-connect.mjs';

describe('Geopoem end to end', { concurrency: 1 }, () => {
  before(async () => {
    state.stack = await startStack();
  }, { timeout: 180000 });
  after(async () => {
    await stopStack(state.stack);
  }, { timeout: 60000 });

  walletConnect.register();
  notFound.register();
  maps.register(); // before staff resolve the active challenge: it pays a guess into it
});
