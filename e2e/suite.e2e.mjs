// The end-to-end suite: `npm run test:e2e` (also a step of `make test`). One real stack for the
// flows (PostgreSQL, Redis, anvil with the test USDC and the pot, gunicorn, a Celery worker with its
// beat), started in `before` and stopped by PID in `after`, also when a flow fails; a second one
// whose relay refuses every stake.
import { describeOnOwnStack } from "./lib/suite.mjs";
import * as game from "./flows/game.mjs";
import * as notFound from "./flows/not-found.mjs";
import * as relaying from "./flows/relaying.mjs";
import * as selfSend from "./flows/self-send.mjs";
import * as tour from "./flows/tour.mjs";
import * as wallet from "./flows/wallet.mjs";

describeOnOwnStack("Geopoem end to end", () => {
  // In this order: the first flows stake into the challenge the stack seeds while it is open; the
  // whole game then publishes its own and moves the chain's clock past both closes.
  notFound.register();
  tour.register();
  wallet.register();
  relaying.register();
  game.register();
});

describeOnOwnStack("Geopoem end to end, a relay that refuses", () => selfSend.register(), {
  env: selfSend.RELAY_REFUSES,
  logs: "logs-relay-refuses",
});
