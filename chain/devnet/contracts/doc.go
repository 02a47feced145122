// Package contracts holds the Solidity contracts that emulate subtensor's EVM precompiles on
// the devnet, their committed build artefacts and Go helpers to place them in a genesis.
//
// Layout:
//
//	src/*.sol             Solidity sources (solc 0.8.30, optimizer on, viaIR, evmVersion cancun)
//	build/<Name>.abi.json compiled ABI of each contract
//	build/<Name>.bin-runtime runtime bytecode (hex) placed in the genesis alloc
//	state_binding.go      abigen binding of SubtensorState (generated)
//	solc-compile.cjs      the node script scripts/gen-contracts.sh runs
//
// Regenerate with scripts/gen-contracts.sh after editing src/ (needs Node and npm); the
// artefacts are committed so building and testing never need Node.
//
// Addresses:
//
//	0x…0a00 SubtensorState: all state, the admin functions and the rules of subtensor's pallet
//	0x…0802 Metagraph, 0x…0803 Subnet, 0x…0804 Neuron, 0x…0806 UidLookup,
//	0x…080c AddressMapping: stateless facades with the reference ABIs selector for selector
//
// The contracts sit in genesis as runtime code, so no constructor ever runs. The only
// genesis storage is SubtensorState's slot 0, the admin address; subnets and neurons are
// created afterwards by admin transactions (createSubnet, registerNeuron, ...).
//
// Every failure reverts with Error(string) whose reason is subtensor's error name
// ("SubnetNotExists", "SettingWeightsTooFast", ...): go-ethereum reports it as
// "execution reverted: <Name>".
package contracts
