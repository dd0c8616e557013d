// The production bundle: hashed files in frontend/build (STATICFILES_DIRS) and the stats file
// django-webpack-loader reads (WEBPACK_LOADER.STATS_FILE). Ethers and the heavy dialogs are
// dynamic imports, so they land in lazy chunks outside the initial budget.
import path from "node:path";
import { fileURLToPath } from "node:url";
import BundleTracker from "webpack-bundle-tracker";
import MiniCssExtractPlugin from "mini-css-extract-plugin";
import { EsbuildPlugin } from "esbuild-loader";

const root = path.dirname(fileURLToPath(import.meta.url));

export default (_env, argv) => {
  const production = argv.mode !== "development";
  return {
    context: root,
    mode: production ? "production" : "development",
    entry: { main: "./frontend/src/index.tsx" },
    output: {
      path: path.join(root, "frontend", "build"),
      filename: production ? "[name].[contenthash:12].js" : "[name].js",
      chunkFilename: production ? "[name].[contenthash:12].js" : "[name].js",
      // "auto": lazy chunks load from wherever the main bundle was served (/static/ via whitenoise).
      publicPath: "auto",
      clean: true,
    },
    resolve: {
      extensions: [".tsx", ".ts", ".js", ".mjs"],
      alias: { "@": path.join(root, "frontend", "src") },
    },
    module: {
      rules: [
        {
          test: /\.[cm]?tsx?$/,
          loader: "esbuild-loader",
          options: { target: "es2020", jsx: "automatic" },
          exclude: /node_modules/,
        },
        { test: /\.css$/, use: [MiniCssExtractPlugin.loader, "css-loader"] },
        { test: /\.(png|svg|jpe?g|webp)$/, type: "asset/resource" },
      ],
    },
    plugins: [
      new MiniCssExtractPlugin({
        filename: production ? "[name].[contenthash:12].css" : "[name].css",
        chunkFilename: production ? "[name].[contenthash:12].css" : "[name].css",
      }),
      new BundleTracker({ path: path.join(root, "frontend"), filename: "webpack-stats.json" }),
    ],
    optimization: {
      // Deterministic ids: the same package-lock.json and sources give the same file names.
      moduleIds: "deterministic",
      chunkIds: "deterministic",
      // The initial code as three scripts (React DOM, the other libraries, the app): the browser
      // compiles and runs each in a task of its own, so no single long task blocks the page for
      // all of it (Lighthouse's total blocking time on a throttled phone).
      splitChunks: {
        cacheGroups: {
          reactDom: {
            test: /[\\/]node_modules[\\/](react-dom|scheduler)[\\/]/,
            name: "react-dom",
            chunks: "initial",
            priority: 20,
          },
          vendor: { test: /[\\/]node_modules[\\/]/, name: "vendor", chunks: "initial", priority: 10 },
        },
      },
      minimizer: [new EsbuildPlugin({ target: "es2020", css: true })],
    },
    devtool: production ? false : "eval-cheap-module-source-map",
    performance: { hints: false },
    stats: production ? "errors-warnings" : "minimal",
  };
};
