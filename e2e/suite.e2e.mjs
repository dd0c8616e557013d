// The end-to-end suite: `npm run test:e2e` (also a step of `make test`). One real stack for every
// flow (PostgreSQL, Redis, anvil with the test USDC, gunicorn, a Celery worker), started in
// `before` and stopped by PID in `after`, also when a flow fails.
import { describeOnOwnStack } from "./lib/suite.mjs";
import * as adminResolve from "./flows/admin-resolve.mjs";
import * as anchored from "./flows/anchored.mjs";
import * as claims from "./flows/claims.mjs";
import * as insufficient from "./flows/insufficient.mjs";
import * as lostPost from "./flows/lost-post.mjs";
import * as maps from "./flows/maps.mjs";
import * as network from "./flows/network.mjs";
import * as notFound from "./flows/not-found.mjs";
import * as refusals from "./flows/refusals.mjs";
import * as relayed from "./flows/relayed.mjs";
import * as squatter from "./flows/squatter.mjs";
import * as submission from "./flows/submission.mjs";
import * as timeout from "./flows/timeout.mjs";
import * as tour from "./flows/tour.mjs";
import * as ux from "./flows/ux.mjs";
import * as walletConnect from "./flows/wallet-connect.mjs";

describeOnOwnStack("Geopoem end to end", () => {
  // In this order: the flows before adminResolve pay into the active challenge, whose winners
  // (the first claim, and the 7 USDC claim of lostPost) adminResolve then checks.
  notFound.register();
  walletConnect.register();
  tour.register();
  ux.register();
  submission.register();
  squatter.register();
  refusals.register();
  insufficient.register();
  network.register();
  lostPost.register();
  timeout.register();
  claims.registerReplaced(); // sped-up and cancelled stakes, into the active challenge
  maps.register(); // before staff resolve the active challenge: it pays a guess into it
  adminResolve.register();
  anchored.register(); // after: it publishes the next challenge once the seeded one is resolved
  claims.registerCloseBeforePost(); // it publishes a challenge of its own, closes and resolves it
  relayed.register(); // last: it takes a player's ETH away, publishes a challenge of its own and resolves it
});

// A stack whose relay refuses every stake (a limit of 0 a day for each address): the player sends
// the signed payment from their own wallet ("Send it yourself").
describeOnOwnStack("Geopoem end to end, a relay that refuses", () => relayed.registerSelfSend(), {
  env: relayed.RELAY_REFUSES,
});
