package chain

import (
	"embed"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
)

// The precompile ABIs are byte-for-byte copies of subtensor's published
// ones (testdata/subtensor-abi holds the upstream files); abi_test.go checks
// that they still match.
//
//go:embed abi/*.abi
var abiFiles embed.FS

// Precompile addresses on subtensor's EVM.
var (
	MetagraphAddress = common.HexToAddress("0x0000000000000000000000000000000000000802")
	SubnetAddress    = common.HexToAddress("0x0000000000000000000000000000000000000803")
	NeuronAddress    = common.HexToAddress("0x0000000000000000000000000000000000000804")
	UidLookupAddress = common.HexToAddress("0x0000000000000000000000000000000000000806")
)

// precompileABIs holds the parsed ABIs the client binds to.
type precompileABIs struct {
	metagraph abi.ABI
	subnet    abi.ABI
	neuron    abi.ABI
	uidLookup abi.ABI
}

func loadABIs() (*precompileABIs, error) {
	var out precompileABIs
	for _, f := range []struct {
		name string
		dst  *abi.ABI
	}{
		{"metagraph", &out.metagraph},
		{"subnet", &out.subnet},
		{"neuron", &out.neuron},
		{"uidLookup", &out.uidLookup},
	} {
		parsed, err := ParseABI(f.name)
		if err != nil {
			return nil, err
		}
		*f.dst = parsed
	}
	return &out, nil
}

// ParseABI parses one of the embedded precompile ABIs by file stem
// ("metagraph", "subnet", "neuron", "uidLookup", "addressMapping").
func ParseABI(name string) (abi.ABI, error) {
	raw, err := abiFiles.ReadFile("abi/" + name + ".abi")
	if err != nil {
		return abi.ABI{}, fmt.Errorf("precompile abi %q: %w", name, err)
	}
	parsed, err := abi.JSON(strings.NewReader(string(raw)))
	if err != nil {
		return abi.ABI{}, fmt.Errorf("precompile abi %q: %w", name, err)
	}
	return parsed, nil
}

// UsedMethods lists, per ABI file, every method the client calls. The
// selector-compatibility test checks each against the reference ABIs.
var UsedMethods = map[string][]string{
	"metagraph": {"getUidCount", "getHotkey", "getColdkey", "getStake", "getValidatorStatus", "getLastUpdate",
		"getIsActive", "getAxon", "getIncentive", "getConsensus", "getDividends", "getVtrust", "getEmission"},
	"subnet": {"getWeightsVersionKey", "getWeightsSetRateLimit", "getMinAllowedWeights", "getMaxWeightLimit",
		"getCommitRevealWeightsEnabled", "getCommitRevealWeightsInterval", "getImmunityPeriod", "getActivityCutoff"},
	"neuron":    {"setWeights", "commitWeights", "revealWeights", "serveAxon"},
	"uidLookup": {"uidLookup"},
}
