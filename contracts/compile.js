// Compiles the project's Solidity offline with solc-js (the npm package `solc`, pinned in
// package.json) and writes one {abi, bytecode} artifact per contract under contracts/build/.
// Run: `node contracts/compile.js` (or `npm run compile:contracts`). The artifacts are committed so
// Python tests and the local stack need no Node at run time.
const fs = require("fs");
const path = require("path");
const solc = require("solc");

const here = __dirname;
const sources = ["TestUSDC.sol", "TestDoubles.sol", "TermsRegistry.sol"];
const input = {
  language: "Solidity",
  sources: Object.fromEntries(
    sources.map((file) => [file, { content: fs.readFileSync(path.join(here, file), "utf8") }]),
  ),
  settings: {
    optimizer: { enabled: true, runs: 200 },
    // Paris: no PUSH0 etc. issues on any node the project targets; anvil and Sepolia accept it.
    evmVersion: "paris",
    outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
  },
};

// `import "@openzeppelin/..."` resolves to node_modules (the version package.json pins); nothing else
// may be imported.
function findImports(importPath) {
  if (!importPath.startsWith("@openzeppelin/")) return { error: `not found: ${importPath}` };
  const file = path.join(here, "..", "node_modules", importPath);
  try {
    return { contents: fs.readFileSync(file, "utf8") };
  } catch {
    return { error: `not found: ${importPath}` };
  }
}

const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }));
const errors = (output.errors || []).filter((e) => e.severity === "error");
for (const e of output.errors || []) console.error(e.formattedMessage);
if (errors.length) process.exit(1);

const outDir = path.join(here, "build");
fs.mkdirSync(outDir, { recursive: true });
for (const file of sources) {
  for (const [name, contract] of Object.entries(output.contracts[file])) {
    const artifact = {
      contractName: name,
      sourceName: `contracts/${file}`,
      compiler: `solc-js ${solc.version()}`,
      abi: contract.abi,
      bytecode: "0x" + contract.evm.bytecode.object,
    };
    fs.writeFileSync(path.join(outDir, `${name}.json`), JSON.stringify(artifact, null, 2) + "\n");
    console.log(`wrote contracts/build/${name}.json`);
  }
}
