// Compiles every .sol file in a source directory with solc's standard-JSON API and writes,
// for each contract with a non-empty ABI, <Name>.abi.json and <Name>.bin-runtime (hex).
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

const input = {
  language: 'Solidity',
  sources,
  settings: {
    optimizer: { enabled: true, runs: 200 },
    viaIR: true,
    evmVersion: 'cancun',
    // No metadata hash in the bytecode: the artefacts only change when the code does.
    metadata: { appendCBOR: false, bytecodeHash: 'none' },
    outputSelection: { '*': { '*': ['abi', 'evm.deployedBytecode.object'] } },
  },
};

function findImports(p) {
  const full = path.join(srcDir, p);
  if (fs.existsSync(full)) return { contents: fs.readFileSync(full, 'utf8') };
  return { error: 'not found: ' + p };
}

const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }));
let failed = false;
for (const e of output.errors || []) {
  console.error(e.formattedMessage || e.message);
  if (e.severity === 'error') failed = true;
}
if (failed) process.exit(1);

fs.mkdirSync(outDir, { recursive: true });
const names = [];
for (const file of Object.keys(output.contracts).sort()) {
  for (const name of Object.keys(output.contracts[file]).sort()) {
    const c = output.contracts[file][name];
    if (!c.abi || c.abi.length === 0) continue; // internal-only libraries
    fs.writeFileSync(path.join(outDir, name + '.abi.json'), JSON.stringify(c.abi, null, 2) + '\n');
    fs.writeFileSync(path.join(outDir, name + '.bin-runtime'), c.evm.deployedBytecode.object + '\n');
    names.push(`${name} (${c.evm.deployedBytecode.object.length / 2} bytes)`);
  }
}
console.log('solc ' + solc.version() + ': ' + names.join(', '));
