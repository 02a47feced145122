package chain

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
)

// StorageQueryAddress is subtensor's StorageQuery precompile (index 2055): its call data is a
// raw storage key and its output the raw SCALE value, empty when the key has no entry.
var StorageQueryAddress = common.HexToAddress("0x0000000000000000000000000000000000000807")

// ErrNoStorageQuery: the node has no StorageQuery precompile (a runtime older than it, or a
// chain that is not subtensor), so storage cannot be read over EVM. Callers fall back to
// whatever they did before.
var ErrNoStorageQuery = errors.New("no StorageQuery precompile at 0x807")

// probeKey starts with no authorized pallet prefix. StorageQuery refuses it ("Invalid key"),
// an address without the precompile answers it like any call to an empty account: success,
// no output.
var probeKey = make([]byte, 32)

// Storage reads SubtensorModule storage items through StorageQuery. A missing entry reads as
// the pallet's default, exactly as the pallet's ValueQuery getters do. Reads are at the latest
// block unless pinned with At. A zero Storage is not usable: get one from Client.Storage.
type Storage struct {
	c     *Client
	block *uint64
}

// Storage returns a reader at the latest block.
func (c *Client) Storage() Storage { return Storage{c: c} }

// At returns the same reader pinned to block.
func (s Storage) At(block uint64) Storage {
	s.block = &block
	return s
}

func (s Storage) blockTag() string {
	if s.block == nil {
		return "latest"
	}
	return hexutil.EncodeUint64(*s.block)
}

// Raw returns the raw value at key, nil when the key has no entry. It fails with
// ErrNoStorageQuery when the node has no StorageQuery precompile.
func (s Storage) Raw(ctx context.Context, key []byte) ([]byte, error) {
	out, err := s.query(ctx, s.blockTag(), [][]byte{key})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// query reads keys at blockTag (nil for a missing entry), in as few round trips as the
// client's batch size allows.
func (s Storage) query(ctx context.Context, blockTag string, keys [][]byte) ([][]byte, error) {
	r := newStorageReads(keys)
	if err := s.c.rawBatch(ctx, blockTag, r.calls()); err != nil {
		return nil, fmt.Errorf("storage query: %w", err)
	}
	if err := r.settle(ctx, s.c, blockTag); err != nil {
		return nil, err
	}
	return r.out, nil
}

// storageReads are StorageQuery reads that travel in a batch, possibly beside other calls.
// After the batch, settle says whether the answers hold: an empty output is a missing entry
// only if the precompile exists. The first time one is seen, a probe decides (see probeKey),
// and a precompile once found is remembered for the client's lifetime.
type storageReads struct {
	keys   [][]byte
	out    [][]byte // the raw values; nil: no entry
	absent error    // set when a read reverted: whatever answered is not StorageQuery
}

func newStorageReads(keys [][]byte) *storageReads {
	return &storageReads{keys: keys, out: make([][]byte, len(keys))}
}

// calls returns one eth_call per key, to add to a batch.
func (r *storageReads) calls() []rawCall {
	calls := make([]rawCall, len(r.keys))
	for i, key := range r.keys {
		calls[i] = rawCall{to: StorageQueryAddress, data: key, done: func(out []byte, err error) error {
			if err != nil {
				// StorageQuery itself never fails on a key with an authorized prefix: whatever
				// reverted here is not it.
				if isRevert(err) {
					if r.absent == nil {
						r.absent = fmt.Errorf("%w: key %x: %v", ErrNoStorageQuery, key, err)
					}
					return nil
				}
				return fmt.Errorf("storage query key %x: %w", key, err)
			}
			if len(out) > 0 {
				r.out[i] = out
			}
			return nil
		}}
	}
	return calls
}

// settle returns ErrNoStorageQuery when the node has no StorageQuery precompile, nil when the
// answers stand, or the probe's error.
func (r *storageReads) settle(ctx context.Context, c *Client, blockTag string) error {
	if r.absent != nil {
		return r.absent
	}
	missing := false
	for _, out := range r.out {
		missing = missing || out == nil
	}
	if !missing {
		if len(r.keys) > 0 {
			c.storageQuery.Store(true)
		}
		return nil
	}
	if c.storageQuery.Load() {
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, c.opts.CallTimeout)
	defer cancel()
	var probe hexutil.Bytes
	err := c.withRedial(cctx, func() error {
		return c.rpc.CallContext(cctx, &probe, "eth_call",
			map[string]any{"to": StorageQueryAddress, "data": hexutil.Bytes(probeKey)}, blockTag)
	})
	var rpcErr rpc.Error
	switch {
	case errors.As(err, &rpcErr):
		// Refused a key without an authorized prefix: the precompile is there.
		c.storageQuery.Store(true)
		return nil
	case err != nil:
		c.metrics.rpcErrors.Inc()
		return fmt.Errorf("storage query probe: %w", err)
	default:
		return ErrNoStorageQuery
	}
}

func isRevert(err error) bool { return strings.Contains(err.Error(), "revert") }

// read decodes one item of netuid.
func (s Storage) read(ctx context.Context, it StorageItem, netuid uint16) (uint64, error) {
	raw, err := s.Raw(ctx, it.Key(netuid))
	if err != nil {
		return 0, fmt.Errorf("storage %s netuid %d: %w", it.Name, netuid, err)
	}
	return it.decode(raw)
}

// Tempo is the subnet's epoch length in blocks (Tempo, default 360 on finney).
func (s Storage) Tempo(ctx context.Context, netuid uint16) (uint16, error) {
	v, err := s.read(ctx, ItemTempo, netuid)
	return uint16(v), err
}

// LastEpochBlock is the block of the subnet's last epoch slot, or of its last tempo change
// (LastEpochBlock, default 0).
func (s Storage) LastEpochBlock(ctx context.Context, netuid uint16) (uint64, error) {
	return s.read(ctx, ItemLastEpochBlock, netuid)
}

// PendingEpochAt is the block an owner-triggered epoch fires at, 0 when none is pending.
func (s Storage) PendingEpochAt(ctx context.Context, netuid uint16) (uint64, error) {
	return s.read(ctx, ItemPendingEpochAt, netuid)
}

// SubnetEpochIndex counts the subnet's epoch slots (default 0).
func (s Storage) SubnetEpochIndex(ctx context.Context, netuid uint16) (uint64, error) {
	return s.read(ctx, ItemSubnetEpochIndex, netuid)
}

// RevealPeriodEpochs is how many epochs after its commit a weights commit is revealed
// (RevealPeriodEpochs, default 1).
func (s Storage) RevealPeriodEpochs(ctx context.Context, netuid uint16) (uint64, error) {
	return s.read(ctx, ItemRevealPeriodEpochs, netuid)
}

// MechanismCount is the subnet's number of mechanisms (MechanismCountCurrent, default 1).
func (s Storage) MechanismCount(ctx context.Context, netuid uint16) (uint8, error) {
	v, err := s.read(ctx, ItemMechanismCountCurrent, netuid)
	return uint8(v), err
}

// MinerBurned is the share (0…1) of the last epoch's miner emission withheld from miners
// (MinerBurned, default 0).
func (s Storage) MinerBurned(ctx context.Context, netuid uint16) (U96F32, error) {
	raw, err := s.Raw(ctx, ItemMinerBurned.Key(netuid))
	if err != nil {
		return U96F32{}, fmt.Errorf("storage %s netuid %d: %w", ItemMinerBurned.Name, netuid, err)
	}
	if len(raw) == 0 {
		return U96F32{}, nil
	}
	v, err := DecodeU96F32(raw)
	if err != nil {
		return U96F32{}, fmt.Errorf("storage %s netuid %d: %w", ItemMinerBurned.Name, netuid, err)
	}
	return v, nil
}

// BlockAtRegistration is the block at which uid's current hotkey registered on netuid
// (default 0).
func (s Storage) BlockAtRegistration(ctx context.Context, netuid, uid uint16) (uint64, error) {
	it := ItemBlockAtRegistration
	raw, err := s.Raw(ctx, it.UIDKey(netuid, uid))
	if err != nil {
		return 0, fmt.Errorf("storage %s netuid %d uid %d: %w", it.Name, netuid, uid, err)
	}
	return it.decode(raw)
}

// CommitRevealWeightsVersion is the chain-wide commit-reveal version (default 4).
func (s Storage) CommitRevealWeightsVersion(ctx context.Context) (uint16, error) {
	v, err := s.read(ctx, ItemCommitRevealWeightsVersion, 0)
	return uint16(v), err
}

// EpochSchedule is a subnet's epoch state read at one block.
type EpochSchedule struct {
	Block              uint64 `json:"block"`
	Tempo              uint16 `json:"tempo"`
	LastEpochBlock     uint64 `json:"last_epoch_block"`
	PendingEpochAt     uint64 `json:"pending_epoch_at"` // 0: no trigger pending
	EpochIndex         uint64 `json:"epoch_index"`      // SubnetEpochIndex
	RevealPeriodEpochs uint64 `json:"reveal_period_epochs"`
}

// NextEpoch is the block the next epoch is expected at, as subtensor's
// get_next_epoch_start_block computes it: LastEpochBlock + Tempo, or PendingEpochAt when a
// trigger is pending and earlier. ok is false for tempo 0 (a subnet that never runs). Like
// subtensor's, it ignores the safety net and the per-block epoch cap.
func (e EpochSchedule) NextEpoch() (block uint64, ok bool) {
	if e.Tempo == 0 {
		return 0, false
	}
	next := e.LastEpochBlock + uint64(e.Tempo)
	if e.PendingEpochAt > 0 && e.PendingEpochAt < next {
		next = e.PendingEpochAt
	}
	return next, true
}

// EpochSchedule reads Tempo, LastEpochBlock, PendingEpochAt, SubnetEpochIndex and
// RevealPeriodEpochs in one batch at one block: the pinned block, or the head read first.
func (s Storage) EpochSchedule(ctx context.Context, netuid uint16) (EpochSchedule, error) {
	var sched EpochSchedule
	if s.block != nil {
		sched.Block = *s.block
	} else {
		head, err := s.c.HeadNumber(ctx)
		if err != nil {
			return sched, err
		}
		sched.Block = head
	}
	items := []StorageItem{ItemTempo, ItemLastEpochBlock, ItemPendingEpochAt, ItemSubnetEpochIndex, ItemRevealPeriodEpochs}
	keys := make([][]byte, len(items))
	for i, it := range items {
		keys[i] = it.Key(netuid)
	}
	raws, err := s.query(ctx, hexutil.EncodeUint64(sched.Block), keys)
	if err != nil {
		return sched, fmt.Errorf("epoch schedule netuid %d: %w", netuid, err)
	}
	vals := make([]uint64, len(items))
	for i, it := range items {
		if vals[i], err = it.decode(raws[i]); err != nil {
			return sched, fmt.Errorf("epoch schedule netuid %d: %w", netuid, err)
		}
	}
	sched.Tempo = uint16(vals[0])
	sched.LastEpochBlock, sched.PendingEpochAt, sched.EpochIndex, sched.RevealPeriodEpochs = vals[1], vals[2], vals[3], vals[4]
	return sched, nil
}

// EpochSchedule reads netuid's epoch schedule at block (Storage().At(block)):
// the validator's view of the chain's epochs.
func (c *Client) EpochSchedule(ctx context.Context, netuid uint16, block uint64) (EpochSchedule, error) {
	return c.Storage().At(block).EpochSchedule(ctx, netuid)
}

// TxEpoch is the commit-reveal epoch of a transaction included in block
// b > e.Block, as subtensor's current_epoch_with_lookahead counts it
// (pallets/subtensor/src/subnets/weights.rs: SubnetEpochIndex, plus one for
// each epoch that fires by b; the next one at NextEpoch, then every Tempo
// blocks).
func (e EpochSchedule) TxEpoch(b uint64) uint64 {
	next, ok := e.NextEpoch()
	if !ok || b < next || b <= e.Block {
		return e.EpochIndex
	}
	return e.EpochIndex + 1 + (b-next)/uint64(e.Tempo)
}

// SubnetShare is what decides a subnet's share of emission beyond its
// price, read at one block.
type SubnetShare struct {
	// Mechanisms is MechanismCountCurrent: weights over EVM reach
	// mechanism 0 only.
	Mechanisms uint8 `json:"mechanisms"`
	// MinerBurned is the share of the last epoch's miner emission withheld
	// from miners (to the owner or burned); subtensor weighs the subnet's
	// emission share by 1 − MinerBurned (coinbase/subnet_emissions.rs).
	MinerBurned float64 `json:"miner_burned"`
}

// SubnetShare reads netuid's mechanism count and MinerBurned at block, in
// one batch.
func (c *Client) SubnetShare(ctx context.Context, netuid uint16, block uint64) (SubnetShare, error) {
	raws, err := c.Storage().query(ctx, hexutil.EncodeUint64(block),
		[][]byte{ItemMechanismCountCurrent.Key(netuid), ItemMinerBurned.Key(netuid)})
	if err != nil {
		return SubnetShare{}, fmt.Errorf("subnet share netuid %d: %w", netuid, err)
	}
	n, err := ItemMechanismCountCurrent.decode(raws[0])
	if err != nil {
		return SubnetShare{}, fmt.Errorf("subnet share netuid %d: %w", netuid, err)
	}
	var burned U96F32
	if len(raws[1]) > 0 {
		if burned, err = DecodeU96F32(raws[1]); err != nil {
			return SubnetShare{}, fmt.Errorf("subnet share netuid %d: %w", netuid, err)
		}
	}
	return SubnetShare{Mechanisms: uint8(n), MinerBurned: burned.Float64()}, nil
}

// SubnetState is everything the chain holds about a subnet's epochs and emission share that
// the Subnet precompile's getters do not show, read through StorageQuery at one block: what
// `arena chain hyperparams` prints beside the getters, with the validator's readers.
type SubnetState struct {
	EpochSchedule
	SubnetShare
	CommitRevealVersion uint16 `json:"commit_reveal_version"`
}

// SubnetState reads netuid's epoch schedule, mechanisms, MinerBurned and the chain-wide
// commit-reveal version at block. It fails with ErrNoStorageQuery when the node has no
// StorageQuery precompile.
func (c *Client) SubnetState(ctx context.Context, netuid uint16, block uint64) (SubnetState, error) {
	var st SubnetState
	var err error
	if st.EpochSchedule, err = c.EpochSchedule(ctx, netuid, block); err != nil {
		return st, err
	}
	if st.SubnetShare, err = c.SubnetShare(ctx, netuid, block); err != nil {
		return st, err
	}
	st.CommitRevealVersion, err = c.Storage().At(block).CommitRevealWeightsVersion(ctx)
	return st, err
}
