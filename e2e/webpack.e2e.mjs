// The suite's own bundle: the project's production webpack config, written into the folder given
// by E2E_BUILD_DIR (the suite's temp dir) instead of frontend/build, so the suite always runs the
// current source and never rewrites the shared frontend/build or frontend/webpack-stats.json.
import path from "node:path";

import BundleTracker from "webpack-bundle-tracker";

import projectConfig from "../webpack.config.mjs";

export default (env, argv) => {
  const out = process.env.E2E_BUILD_DIR;
  if (!out) throw new Error("E2E_BUILD_DIR is not set");
  const config = projectConfig(env, argv);
  config.output = { ...config.output, path: path.join(out, "build") };
  config.plugins = config.plugins.map((plugin) =>
    plugin instanceof BundleTracker ? new BundleTracker({ path: out, filename: "webpack-stats.json" }) : plugin,
  );
  return config;
};
