// Compiles every .sol file in a source directory with solc's standard-JSON API and writes,
// for each contract with a non-empty ABI, <Name>.abi.json and <Name>.bin-runtime (hex).
// Optimizer on (200 runs), evmVersion cancun, viaIR except for LEGACY_SOURCES.
//
// usage: node solc-compile.cjs <solc module dir> <src dir> <out dir>
'use strict';

const fs = require('fs');
const path = require('path');

const [solcDir, srcDir, outDir] = process.argv.slice(2);
if (!solcDir || !srcDir || !outDir) {
  console.error('usage: node solc-compile.cjs <solc module dir> <src dir> <out dir>');
  process.exit(2);
}
const solc = require(path.resolve(solcDir));

const sources = {};
for (const file of fs.readdirSync(srcDir).filter((f) => f.endsWith('.sol')).sort()) {
  sources[file] = { content: fs.readFileSync(path.join(srcDir, file), 'utf8') };
}

// Sources compiled with the legacy pipeline instead of viaIR. Metagraph (0x802) serves the
// hot per-uid getters; go-ethereum analyses the whole runtime code of every contract an
// eth_call runs, and the legacy pipeline gives it a smaller one.
const LEGACY_SOURCES = new Set(['Metagraph.sol']);

// Every pass sees all sources (for imports) but only generates code for its own files.
function compile(viaIR, files) {
  const outputSelection = {};
  for (const f of files) outputSelection[f] = { '*': ['abi', 'evm.deployedBytecode.object'] };
  const input = {
    language: 'Solidity',
    sources,
    settings: {
      optimizer: { enabled: true, runs: 200 },
      viaIR,
      evmVersion: 'cancun',
      // No metadata hash in the bytecode: the artefacts only change when the code does.
      metadata: { appendCBOR: false, bytecodeHash: 'none' },
      outputSelection,
    },
  };
  return JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }));
}

function findImports(p) {
  const full = path.join(srcDir, p);
  if (fs.existsSync(full)) return { contents: fs.readFileSync(full, 'utf8') };
  return { error: 'not found: ' + p };
}

const all = Object.keys(sources);
const outputs = [
  compile(true, all.filter((f) => !LEGACY_SOURCES.has(f))),
  compile(false, all.filter((f) => LEGACY_SOURCES.has(f))),
];

let failed = false;
const seen = new Set();
const contracts = {};
for (const output of outputs) {
  for (const e of output.errors || []) {
    const msg = e.formattedMessage || e.message;
    if (seen.has(msg)) continue; // both passes report the same source warnings
    seen.add(msg);
    console.error(msg);
    if (e.severity === 'error') failed = true;
  }
  for (const [file, byName] of Object.entries(output.contracts || {})) {
    for (const [name, c] of Object.entries(byName)) {
      if (!c.evm || !c.evm.deployedBytecode) continue; // not selected in this pass
      contracts[file] = contracts[file] || {};
      contracts[file][name] = c;
    }
  }
}
if (failed) process.exit(1);

fs.mkdirSync(outDir, { recursive: true });
const names = [];
for (const file of Object.keys(contracts).sort()) {
  for (const name of Object.keys(contracts[file]).sort()) {
    const c = contracts[file][name];
    if (!c.abi || c.abi.length === 0) continue; // internal-only libraries
    fs.writeFileSync(path.join(outDir, name + '.abi.json'), JSON.stringify(c.abi, null, 2) + '\n');
    fs.writeFileSync(path.join(outDir, name + '.bin-runtime'), c.evm.deployedBytecode.object + '\n');
    names.push(`${name} (${c.evm.deployedBytecode.object.length / 2} bytes)`);
  }
}
console.log('solc ' + solc.version() + ': ' + names.join(', '));
