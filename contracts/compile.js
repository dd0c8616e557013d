// Compiles the project's Solidity offline with solc-js (the npm package `solc`, pinned in
// package.json) and writes one {abi, bytecode} artifact per contract under contracts/build/.
// Run: `node contracts/compile.js` (or `npm run compile:contracts`). The artifacts are committed so
// Python tests and the local stack need no Node at run time.
const fs = require("fs");
const path = require("path");
const solc = require("solc");

const here = __dirname;
// Two groups, each with its EVM target. The pot (and its library) needs Cancun: OpenZeppelin's
// ReentrancyGuardTransient keeps its lock in transient storage (TSTORE/TLOAD), which anvil, Sepolia
// and mainnet all run. The older contracts stay on Paris, as their bytecode always was (TestUSDC's
// header says why it avoids `mcopy`).
const groups = [
  { evmVersion: "paris", sources: ["TestUSDC.sol", "TestUSDCProxy.sol", "TestDoubles.sol"] },
  { evmVersion: "cancun", sources: ["GeoMath.sol", "GeopoemPot.sol"] },
];

function inputOf({ evmVersion, sources }) {
  return {
    language: "Solidity",
    sources: Object.fromEntries(
      sources.map((file) => [file, { content: fs.readFileSync(path.join(here, file), "utf8") }]),
    ),
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion,
      outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
    },
  };
}

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

const outDir = path.join(here, "build");
fs.mkdirSync(outDir, { recursive: true });
for (const group of groups) {
  const output = JSON.parse(solc.compile(JSON.stringify(inputOf(group)), { import: findImports }));
  const errors = (output.errors || []).filter((e) => e.severity === "error");
  for (const e of output.errors || []) console.error(e.formattedMessage);
  if (errors.length) process.exit(1);
  for (const file of group.sources) {
    for (const [name, contract] of Object.entries(output.contracts[file])) {
      const artifact = {
        contractName: name,
        sourceName: `contracts/${file}`,
        compiler: `solc-js ${solc.version()}`,
        evmVersion: group.evmVersion,
        abi: contract.abi,
        bytecode: "0x" + contract.evm.bytecode.object,
      };
      fs.writeFileSync(path.join(outDir, `${name}.json`), JSON.stringify(artifact, null, 2) + "\n");
      console.log(`wrote contracts/build/${name}.json`);
    }
  }
}
