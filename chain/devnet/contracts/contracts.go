package contracts

import (
	"context"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Addresses of the devnet contracts.
var (
	StateAddress          = common.HexToAddress("0x0000000000000000000000000000000000000a00")
	MetagraphAddress      = common.HexToAddress("0x0000000000000000000000000000000000000802")
	SubnetAddress         = common.HexToAddress("0x0000000000000000000000000000000000000803")
	NeuronAddress         = common.HexToAddress("0x0000000000000000000000000000000000000804")
	UidLookupAddress      = common.HexToAddress("0x0000000000000000000000000000000000000806")
	StorageQueryAddress   = common.HexToAddress("0x0000000000000000000000000000000000000807")
	AddressMappingAddress = common.HexToAddress("0x000000000000000000000000000000000000080c")
)

// Contract names, as used by ABI and Code.
const (
	NameState          = "SubtensorState"
	NameMetagraph      = "Metagraph"
	NameSubnet         = "Subnet"
	NameNeuron         = "Neuron"
	NameUidLookup      = "UidLookup"
	NameStorageQuery   = "StorageQuery"
	NameAddressMapping = "AddressMapping"
)

// AdminSlot is the storage slot of SubtensorState holding the admin address.
var AdminSlot = common.Hash{}

// Hyperparameter numbers of SubtensorState.hyperparameter / setHyperparameter (the Hyper
// enum of src/Common.sol).
const (
	HyperWeightsVersionKey uint8 = iota
	HyperWeightsSetRateLimit
	HyperMinAllowedWeights
	HyperMaxWeightLimit
	HyperCommitRevealEnabled
	HyperCommitRevealInterval
	HyperImmunityPeriod
	HyperActivityCutoff
	HyperKappa
	HyperRho
	HyperActivityCutoffFactor
	HyperAdjustmentAlpha
	HyperAlphaLow
	HyperAlphaHigh
	HyperBondsMovingAverage
	HyperBondsResetEnabled
	HyperDifficulty
	HyperMinDifficulty
	HyperMaxDifficulty
	HyperMinBurn
	HyperMaxBurn
	HyperLiquidAlphaEnabled
	HyperYuma3Enabled
	HyperNetworkRegistrationAllowed
	HyperNetworkPowRegistrationAllowed
	HyperAlphaSigmoidSteepness
	HyperServingRateLimit
	HyperTransfersEnabled
	// HyperCommitRevealByEpochIndex is devnet-only (no Subnet getter or setter): set, commit-reveal
	// counts epochs with SubnetEpochIndex; unset (the default), with the legacy
	// (block + netuid + 1) / (tempo + 1).
	HyperCommitRevealByEpochIndex
)

// Storage items of SubtensorState.storageItem, the SubtensorModule items StorageQuery (0x807)
// answers (the StorageItem enum of src/Common.sol).
const (
	ItemTempo uint8 = iota
	ItemLastEpochBlock
	ItemPendingEpochAt
	ItemSubnetEpochIndex
	ItemRevealPeriodEpochs
	ItemMechanismCountCurrent
	ItemMinerBurned
	ItemCommitRevealWeightsVersion
	// ItemBlockAtRegistration is keyed by (netuid, uid): StorageQuery reads it from Metagraph's
	// table (Metagraph.blockAtRegistration), not through storageItem.
	ItemBlockAtRegistration
)

//go:embed build/*
var build embed.FS

// placement lists the contracts Genesis places, by address.
var placement = []struct {
	name string
	addr *common.Address
}{
	{NameState, &StateAddress},
	{NameMetagraph, &MetagraphAddress},
	{NameSubnet, &SubnetAddress},
	{NameNeuron, &NeuronAddress},
	{NameUidLookup, &UidLookupAddress},
	{NameStorageQuery, &StorageQueryAddress},
	{NameAddressMapping, &AddressMappingAddress},
}

// Code returns the runtime bytecode of a compiled contract by name.
func Code(name string) ([]byte, error) {
	raw, err := build.ReadFile("build/" + name + ".bin-runtime")
	if err != nil {
		return nil, fmt.Errorf("contracts: no bytecode for %q: %w", name, err)
	}
	code, err := hex.DecodeString(strings.TrimSpace(string(raw)))
	if err != nil {
		return nil, fmt.Errorf("contracts: bytecode of %q: %w", name, err)
	}
	if len(code) == 0 {
		return nil, fmt.Errorf("contracts: empty bytecode for %q", name)
	}
	return code, nil
}

// ABI returns the parsed ABI of a compiled contract by name ("Metagraph", "Subnet",
// "Neuron", "UidLookup", "StorageQuery", "AddressMapping", "SubtensorState").
func ABI(name string) (abi.ABI, error) {
	raw, err := build.ReadFile("build/" + name + ".abi.json")
	if err != nil {
		return abi.ABI{}, fmt.Errorf("contracts: no ABI for %q: %w", name, err)
	}
	parsed, err := abi.JSON(strings.NewReader(string(raw)))
	if err != nil {
		return abi.ABI{}, fmt.Errorf("contracts: ABI of %q: %w", name, err)
	}
	return parsed, nil
}

// Genesis returns the alloc placing every contract's runtime code at its address and the
// admin in STATE's slot 0 (no other storage: Metagraph's table starts empty, with no
// subnet). Callers add their funded accounts to the returned map.
// It panics if the embedded build is broken, which the package tests rule out.
func Genesis(admin common.Address) types.GenesisAlloc {
	alloc := make(types.GenesisAlloc, len(placement))
	for _, p := range placement {
		code, err := Code(p.name)
		if err != nil {
			panic(err)
		}
		acct := types.Account{Code: code, Nonce: 1, Balance: new(big.Int)}
		if p.name == NameState {
			acct.Storage = map[common.Hash]common.Hash{AdminSlot: common.BytesToHash(admin.Bytes())}
		}
		alloc[*p.addr] = acct
	}
	return alloc
}

// GasHeadroom wraps a contract backend so that bindings add a quarter to every gas estimate.
// go-ethereum estimates against the latest block while the transaction lands in a later one,
// and SubtensorState's gas depends on block.number where it writes block numbers (the epoch
// schedule: overwriting a slot with an equal value is cheaper than with a new one). The chain
// client adds 20% for the same reason. (A first write into an empty slot costs far more again;
// SubtensorState keeps the schedule's slots from ever being empty, see Schedule.)
func GasHeadroom(b bind.ContractBackend) bind.ContractBackend { return gasHeadroom{b} }

type gasHeadroom struct{ bind.ContractBackend }

func (g gasHeadroom) EstimateGas(ctx context.Context, msg ethereum.CallMsg) (uint64, error) {
	gas, err := g.ContractBackend.EstimateGas(ctx, msg)
	return gas + gas/4, err
}

// PendingCallContract passes pending calls through (bind.CallOpts.Pending).
func (g gasHeadroom) PendingCallContract(ctx context.Context, msg ethereum.CallMsg) ([]byte, error) {
	p, ok := g.ContractBackend.(bind.PendingContractCaller)
	if !ok {
		return nil, errors.New("backend does not support pending state")
	}
	return p.PendingCallContract(ctx, msg)
}
