// Package devnet runs a local EVM chain that speaks subtensor's precompile
// ABIs over real JSON-RPC, for tests, `arena devnet` and `arena dev`.
//
// It is go-ethereum's simulated backend (a full in-process node) whose
// genesis places Solidity contracts (package devnet/contracts) at the
// precompile addresses 0x802 (Metagraph), 0x803 (Subnet), 0x804 (Neuron) and
// 0x806 (UidLookup). The contracts apply the chain's weight rules, and
// compute mirror accounts and commit hashes with blake2b through the EVM's
// BLAKE2 F precompile, so the chain client runs unchanged against it.
//
// Differences from subtensor, on purpose:
//   - chain id is 1337 (the simulated backend's);
//   - an admin key (dev key 0, also the subnet owner) registers neurons and
//     sets stake and permits directly;
//   - Yuma consensus is simplified (see Yuma) and computed by the devnet in
//     Go at the end of each epoch, then written on chain by the admin;
//   - the public endpoint is a TCP relay in front of the node so it can be
//     stopped and restarted (StopServer/StartServer) to test reconnects.
//
// The validator must only reach the devnet through package chain.
package devnet
