// Package chain is arena's client for subtensor's EVM interface: Ethereum
// JSON-RPC (Frontier) over websocket or HTTP plus the subtensor precompiles
// (Metagraph 0x802, Subnet 0x803, Neuron 0x804, UidLookup 0x806, StorageQuery 0x807).
//
// It reads heads, metagraph snapshots, hyperparameters and raw pallet storage
// (Storage: tempo, the epoch schedule, reveal period, ...), and sets,
// commits and reveals weights with EIP-1559 transactions signed by a
// go-ethereum keystore key. The chain sees that key as its "mirror"
// substrate account, blake2b_256("evm:" ‖ address), which is therefore the
// hotkey a validator must be registered with.
//
// The package knows nothing about problems or scores. The same code runs
// against finney, testnet and the in-process devnet (package chain/devnet).
package chain
