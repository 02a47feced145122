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
//	0x…0a00 SubtensorState: the admin functions, the rules of subtensor's pallet and all
//	        state except the metagraph table and StorageQuery's three admin-written items
//	0x…0802 Metagraph: the reference ABI's getters, served from its own storage (below)
//	0x…0803 Subnet, 0x…0804 Neuron, 0x…0806 UidLookup,
//	0x…080c AddressMapping: stateless facades with the reference ABIs selector for selector
//	0x…0807 StorageQuery: raw SubtensorModule storage keys in, SCALE values out (no ABI, as
//	        on subtensor); the epoch schedule, tempo and RevealPeriodEpochs come from
//	        SubtensorState, BlockAtRegistration from Metagraph's table,
//	        MechanismCountCurrent, MinerBurned and CommitRevealWeightsVersion are its own
//	        storage, written by the admin
//
// Epochs follow subtensor's dynamic-tempo scheduler. SubtensorState stores each subnet's
// schedule (LastEpochBlock, PendingEpochAt, SubnetEpochIndex) as of the block it was last
// written and advances it on every read through the epochs fired since, so a read at block N
// sees an epoch that fires at N (subtensor runs it in on_initialize). setTempo (root's
// sudo_set_tempo: freeze window, cycle reset) and triggerEpoch (the owner's trigger_epoch:
// PendingEpochAt = now + AdminFreezeWindow) settle it first. The devnet runs Yuma in Go when
// SubnetEpochIndex moves.
//
// Metagraph stores the metagraph table: each subnet's uid count and, per uid, hotkey,
// coldkey, stake, validator permit, active, lastUpdate, registration block, epoch results
// (rank, trust, consensus, incentive, dividends, vtrust, emission) and axon. Each of its
// getters is one small contract frame reading its own storage, with no call into
// SubtensorState: a metagraph snapshot is ~12 eth_calls per uid, and go-ethereum re-analyses
// the code of every frame of every eth_call. SubtensorState applies the rules and is the only writer, through
// Metagraph's state* functions (anyone else gets "OnlyState"); it reads the table back
// through the public getters. Keep Metagraph small and free of external calls
// (TestMetagraphSelfContained). Its one getter outside the reference ABI,
// blockAtRegistration, serves StorageQuery's BlockAtRegistration, which a snapshot reads
// once per uid too.
//
// SubtensorState's runtime code is above EIP-170's 24 KB limit (solc warns). The limit bounds
// contract creation only; these contracts are placed in genesis and never created.
//
// The contracts sit in genesis as runtime code, so no constructor ever runs. The only
// genesis storage is SubtensorState's slot 0, the admin address (Metagraph's storage starts
// empty: no subnet); subnets and neurons are created afterwards by admin transactions
// (createSubnet, registerNeuron, ...).
//
// Every failure reverts with Error(string) whose reason is subtensor's error name
// ("SubnetNotExists", "SettingWeightsTooFast", ...): go-ethereum reports it as
// "execution reverted: <Name>".
package contracts
