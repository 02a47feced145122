package chain

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/netip"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// Axon is where a neuron serves, decoded from the Metagraph precompile.
type Axon struct {
	Block    uint64     `json:"block"`
	Version  uint32     `json:"version"`
	IP       netip.Addr `json:"ip"`
	Port     uint16     `json:"port"`
	IPType   uint8      `json:"ip_type"`
	Protocol uint8      `json:"protocol"`
}

// Served reports whether the neuron has announced a usable endpoint.
func (a Axon) Served() bool { return a.IP.IsValid() && !a.IP.IsUnspecified() && a.Port != 0 }

// HostPort is ip:port, bracketing IPv6.
func (a Axon) HostPort() string {
	if !a.IP.IsValid() {
		return ""
	}
	return netip.AddrPortFrom(a.IP, a.Port).String()
}

// decodeAxonIP turns the precompile's uint128 into an address. ip_type 4
// keeps the value in the low 32 bits; 6 uses all 128.
func decodeAxonIP(ip *big.Int, ipType uint8) (netip.Addr, error) {
	if ip == nil || ip.Sign() == 0 {
		return netip.Addr{}, nil
	}
	var buf [16]byte
	ip.FillBytes(buf[:])
	switch ipType {
	case 4:
		if ip.BitLen() > 32 {
			return netip.Addr{}, fmt.Errorf("ipv4 axon value %s exceeds 32 bits", ip)
		}
		return netip.AddrFrom4([4]byte(buf[12:])), nil
	case 6:
		return netip.AddrFrom16(buf), nil
	default:
		return netip.Addr{}, fmt.Errorf("axon ip_type %d: want 4 or 6", ipType)
	}
}

// EncodeAxonIP is the inverse of decodeAxonIP, for serveAxon.
func EncodeAxonIP(ip netip.Addr) (*big.Int, uint8) {
	if ip.Is4() || ip.Is4In6() {
		b := ip.Unmap().As4()
		return new(big.Int).SetBytes(b[:]), 4
	}
	b := ip.As16()
	return new(big.Int).SetBytes(b[:]), 6
}

// Neuron is one uid's state. Rank-like values are the chain's u16 fixed
// point (65535 = 1.0).
type Neuron struct {
	UID             uint16    `json:"uid"`
	Hotkey          AccountID `json:"hotkey"`
	Coldkey         AccountID `json:"coldkey"`
	Stake           uint64    `json:"stake_rao"`
	ValidatorPermit bool      `json:"validator_permit"`
	LastUpdate      uint64    `json:"last_update"`
	Active          bool      `json:"active"`
	Axon            Axon      `json:"axon"`
	Incentive       uint16    `json:"incentive"`
	Consensus       uint16    `json:"consensus"`
	Dividends       uint16    `json:"dividends"`
	Vtrust          uint16    `json:"vtrust"`
	Emission        uint64    `json:"emission_rao"`
	// RegisteredAt is the block at which the uid's current hotkey registered on the subnet
	// (subtensor's BlockAtRegistration). 0 when Metagraph.RegistrationKnown is false.
	RegisteredAt uint64 `json:"registered_at"`
}

// Metagraph is a consistent snapshot of a subnet at one block.
type Metagraph struct {
	Netuid  uint16   `json:"netuid"`
	Block   uint64   `json:"block"`
	Neurons []Neuron `json:"neurons"`
	// RegistrationKnown: every neuron's RegisteredAt was read from the chain. False when the
	// node has no StorageQuery precompile (an older runtime): then every RegisteredAt is 0 and
	// only uids order the neurons.
	RegistrationKnown bool `json:"registration_known"`
}

// ByHotkey finds the neuron registered with hotkey.
func (m *Metagraph) ByHotkey(hotkey AccountID) (Neuron, bool) {
	for _, n := range m.Neurons {
		if n.Hotkey == hotkey {
			return n, true
		}
	}
	return Neuron{}, false
}

// MarshalText lets AccountID appear as SS58 in JSON.
func (a AccountID) MarshalText() ([]byte, error) { return []byte(a.SS58()), nil }

// UnmarshalText parses SS58.
func (a *AccountID) UnmarshalText(b []byte) error {
	v, err := ParseSS58(string(b))
	if err != nil {
		return err
	}
	*a = v
	return nil
}

// U16ToFloat converts the chain's u16 fixed point to [0,1].
func U16ToFloat(v uint16) float64 { return float64(v) / 65535 }

// Metagraph reads every uid of netuid at the current head in a few batched
// round trips (one for the count, then ⌈uids·13 / BatchSize⌉ batches,
// BatchParallelism at a time).
func (c *Client) Metagraph(ctx context.Context, netuid uint16) (*Metagraph, error) {
	started := time.Now()
	head, err := c.HeadNumber(ctx)
	if err != nil {
		return nil, err
	}
	mg, err := c.MetagraphAt(ctx, netuid, head)
	if err != nil {
		return nil, err
	}
	c.metrics.metagraphSeconds.Observe(time.Since(started).Seconds())
	return mg, nil
}

// MaxUIDs bounds the uid count the validator accepts from getUidCount.
// Subtensor caps a subnet's max_allowed_uids well below this (256 by
// default); a larger answer is a broken or hostile node, and believing it
// would cost a dozen eth_calls and a Neuron allocation per claimed uid.
const MaxUIDs = 4096

// checkUIDCount validates a uid count read from the chain before it sizes
// anything.
func checkUIDCount(n uint16) error {
	if int(n) > MaxUIDs {
		return fmt.Errorf("node reports %d uids, more than the %d any subnet can hold", n, MaxUIDs)
	}
	return nil
}

// MetagraphAt reads the snapshot at a given block: per uid, the Metagraph precompile's twelve
// getters and BlockAtRegistration through StorageQuery, all in the same batches. On a node
// without StorageQuery the snapshot has RegistrationKnown false (see Metagraph).
func (c *Client) MetagraphAt(ctx context.Context, netuid uint16, block uint64) (*Metagraph, error) {
	mgABI := &c.abis.metagraph
	var count uint16
	if err := c.callBatch(ctx, block, []viewCall{{
		contract: mgABI, to: MetagraphAddress, method: "getUidCount", args: []any{netuid}, decode: into(&count),
	}}); err != nil {
		return nil, fmt.Errorf("metagraph netuid %d: %w", netuid, err)
	}
	if err := checkUIDCount(count); err != nil {
		return nil, fmt.Errorf("metagraph netuid %d: %w", netuid, err)
	}
	mg := &Metagraph{Netuid: netuid, Block: block, Neurons: make([]Neuron, count)}
	type rawAxon struct {
		Block    uint64   `abi:"block"`
		Version  uint32   `abi:"version"`
		Ip       *big.Int `abi:"ip"`
		Port     uint16   `abi:"port"`
		IpType   uint8    `abi:"ip_type"`
		Protocol uint8    `abi:"protocol"`
	}
	axons := make([]rawAxon, count)
	calls := make([]viewCall, 0, int(count)*12)
	regKeys := make([][]byte, count)
	for uid := range count {
		regKeys[uid] = ItemBlockAtRegistration.UIDKey(netuid, uid)
		n := &mg.Neurons[uid]
		n.UID = uid
		get := func(method string, decode func([]any) error) {
			calls = append(calls, viewCall{contract: mgABI, to: MetagraphAddress, method: method, args: []any{netuid, uid}, decode: decode})
		}
		get("getHotkey", intoAccount(&n.Hotkey))
		get("getColdkey", intoAccount(&n.Coldkey))
		get("getStake", into(&n.Stake))
		get("getValidatorStatus", into(&n.ValidatorPermit))
		get("getLastUpdate", into(&n.LastUpdate))
		get("getIsActive", into(&n.Active))
		get("getIncentive", into(&n.Incentive))
		get("getConsensus", into(&n.Consensus))
		get("getDividends", into(&n.Dividends))
		get("getVtrust", into(&n.Vtrust))
		get("getEmission", into(&n.Emission))
		get("getAxon", func(values []any) error {
			if len(values) != 1 {
				return fmt.Errorf("%d return values, want 1", len(values))
			}
			// The tuple decodes to an anonymous struct with these fields.
			axons[uid] = *abi.ConvertType(values[0], new(rawAxon)).(*rawAxon)
			return nil
		})
	}
	raws, err := rawViewCalls(calls)
	if err != nil {
		return nil, fmt.Errorf("metagraph netuid %d: %w", netuid, err)
	}
	regs := newStorageReads(regKeys)
	blockTag := hexutil.EncodeUint64(block)
	if err := c.rawBatch(ctx, blockTag, append(raws, regs.calls()...)); err != nil {
		return nil, fmt.Errorf("metagraph netuid %d: %w", netuid, err)
	}
	switch err := regs.settle(ctx, c, blockTag); {
	case errors.Is(err, ErrNoStorageQuery):
		c.log.Debug().Err(err).Msg("metagraph without registration blocks")
	case err != nil:
		return nil, fmt.Errorf("metagraph netuid %d: registration blocks: %w", netuid, err)
	default:
		mg.RegistrationKnown = true
		for uid, raw := range regs.out {
			if mg.Neurons[uid].RegisteredAt, err = ItemBlockAtRegistration.decode(raw); err != nil {
				return nil, fmt.Errorf("metagraph netuid %d uid %d: %w", netuid, uid, err)
			}
		}
	}
	for uid, raw := range axons {
		ip, err := decodeAxonIP(raw.Ip, raw.IpType)
		if err != nil {
			c.log.Warn().Int("uid", uid).Err(err).Msg("ignoring malformed axon")
		}
		mg.Neurons[uid].Axon = Axon{Block: raw.Block, Version: raw.Version, IP: ip, Port: raw.Port, IPType: raw.IpType, Protocol: raw.Protocol}
	}
	return mg, nil
}

// Hyperparams are the subnet settings the validator's weight logic needs.
type Hyperparams struct {
	WeightsVersionKey    uint64 `json:"weights_version_key"`
	WeightsSetRateLimit  uint64 `json:"weights_set_rate_limit"`
	MinAllowedWeights    uint16 `json:"min_allowed_weights"`
	MaxWeightLimit       uint16 `json:"max_weight_limit"`
	CommitRevealEnabled  bool   `json:"commit_reveal_enabled"`
	CommitRevealInterval uint64 `json:"commit_reveal_interval"`
	ImmunityPeriod       uint16 `json:"immunity_period"`
	ActivityCutoff       uint16 `json:"activity_cutoff"`
}

// Hyperparams reads the subnet's settings from the Subnet precompile in one
// batch at the current head.
func (c *Client) Hyperparams(ctx context.Context, netuid uint16) (*Hyperparams, error) {
	head, err := c.HeadNumber(ctx)
	if err != nil {
		return nil, err
	}
	return c.HyperparamsAt(ctx, netuid, head)
}

// HyperparamsAt reads the settings at a given block.
func (c *Client) HyperparamsAt(ctx context.Context, netuid uint16, block uint64) (*Hyperparams, error) {
	var hp Hyperparams
	sub := &c.abis.subnet
	get := func(method string, decode func([]any) error) viewCall {
		return viewCall{contract: sub, to: SubnetAddress, method: method, args: []any{netuid}, decode: decode}
	}
	calls := []viewCall{
		get("getWeightsVersionKey", into(&hp.WeightsVersionKey)),
		get("getWeightsSetRateLimit", into(&hp.WeightsSetRateLimit)),
		get("getMinAllowedWeights", into(&hp.MinAllowedWeights)),
		get("getMaxWeightLimit", into(&hp.MaxWeightLimit)),
		get("getCommitRevealWeightsEnabled", into(&hp.CommitRevealEnabled)),
		get("getCommitRevealWeightsInterval", into(&hp.CommitRevealInterval)),
		get("getImmunityPeriod", into(&hp.ImmunityPeriod)),
		get("getActivityCutoff", into(&hp.ActivityCutoff)),
	}
	if err := c.callBatch(ctx, block, calls); err != nil {
		return nil, fmt.Errorf("hyperparameters netuid %d: %w", netuid, err)
	}
	return &hp, nil
}

// EpochIndex is subtensor's epoch numbering: (block + netuid + 1) / (tempo + 1).
// Commit-reveal timing is counted in these epochs.
func EpochIndex(block uint64, netuid uint16, tempo uint64) uint64 {
	return (block + uint64(netuid) + 1) / (tempo + 1)
}
