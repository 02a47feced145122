package contracts

import (
	"embed"
	"encoding/hex"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
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
	AddressMappingAddress = common.HexToAddress("0x000000000000000000000000000000000000080c")
)

// Contract names, as used by ABI and Code.
const (
	NameState          = "SubtensorState"
	NameMetagraph      = "Metagraph"
	NameSubnet         = "Subnet"
	NameNeuron         = "Neuron"
	NameUidLookup      = "UidLookup"
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
// "Neuron", "UidLookup", "AddressMapping", "SubtensorState").
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
