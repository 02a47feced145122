// Package devnet runs a local EVM chain that speaks subtensor's precompile
// ABIs over real JSON-RPC, for tests, `arena devnet` and `arena dev`.
//
// It is go-ethereum's simulated backend (a full in-process node) whose
// genesis places Solidity contracts (package devnet/contracts) at the
// precompile addresses 0x802 (Metagraph), 0x803 (Subnet), 0x804 (Neuron),
// 0x806 (UidLookup) and 0x807 (StorageQuery: raw SubtensorModule storage
// keys in, SCALE values out). The contracts apply the chain's weight rules, and
// compute mirror accounts and commit hashes with blake2b through the EVM's
// BLAKE2 F precompile, so the chain client runs unchanged against it.
//
// Epochs follow subtensor's dynamic-tempo rule: an epoch fires when
// block − LastEpochBlock ≥ tempo or at an owner-triggered PendingEpochAt, and
// SubnetEpochIndex counts them. TriggerEpoch, SetTempo and
// SetAdminFreezeWindow drive it the way the owner's trigger_epoch and root's
// sudo_set_tempo do; EpochScheduleAt reads it in-process.
//
// Differences from subtensor, on purpose:
//   - chain id is 1337 (the simulated backend's);
//   - an admin key (dev key 0, also the subnet owner) registers neurons and
//     sets stake and permits directly; there is no pruning: ReplaceNeuron
//     gives a uid the admin names to a new hotkey (a new BlockAtRegistration),
//     as a registration on a full subnet does with the uid it prunes;
//   - Yuma consensus is simplified (see Yuma) and computed by the devnet in
//     Go when an epoch fires, then written on chain by the admin (the
//     results land in the next block);
//   - commit-reveal counts epochs with SubnetEpochIndex (as subtensor),
//     or the legacy way, (block + netuid + 1) / (tempo + 1), under
//     Options.LegacyCommitRevealEpochs or WithoutStorageQuery;
//   - the public endpoint is a TCP relay in front of the node so it can be
//     stopped and restarted (StopServer/StartServer) to test reconnects.
//
// The validator must only reach the devnet through package chain.
package devnet
