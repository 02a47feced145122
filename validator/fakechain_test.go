package validator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"arena/chain"
)

// fault is a failure the fake chain produces on demand, once per queued
// entry.
type fault int

const (
	// faultUnreachable: the node does not answer; nothing is broadcast.
	faultUnreachable fault = iota + 1
	// faultReceiptLost: the transaction is broadcast and mined, but the
	// call fails before its receipt is read (the node dropped mid-call).
	faultReceiptLost
	// faultReverted: the transaction is mined but reverts, for a reason
	// the client cannot name (its nonce is spent, nothing applied).
	faultReverted
)

// errUnreachable is the transient error of faultUnreachable.
var errUnreachable = errors.New("fake chain: node unreachable")

// fakeCall is one call the validator made, with what it was answered.
type fakeCall struct {
	op      string // "metagraph", "hyperparams", "setWeights", "commitWeights", "revealWeights", "resumeTx"
	head    uint64 // the chain's head when the call was made
	weights chain.Weights
	commit  common.Hash
	tx      common.Hash // the signed transaction, if one was made
	err     error
}

// fakeTx is a transaction the fake chain signed for the validator.
type fakeTx struct {
	Op     string      `json:"op"`
	Nonce  uint64      `json:"nonce"`
	From   string      `json:"from"`
	Netuid uint16      `json:"netuid"`
	UIDs   []uint16    `json:"uids,omitempty"`
	Values []uint16    `json:"values,omitempty"`
	Salt   []uint16    `json:"salt,omitempty"`
	Commit common.Hash `json:"commit,omitempty"`
}

// minedTx is a transaction in a block.
type minedTx struct {
	hash  common.Hash
	block uint64
	tx    fakeTx
}

// fakeChain is an in-memory subnet behind the validator's Chain
// interface: the test scripts its head, metagraph and hyperparameters;
// weights transactions follow the chain's rules (rate limit, commit-reveal
// on or off, reveal epoch, commit hash), update last_update, are recorded,
// and fail on demand.
type fakeChain struct {
	netuid uint16
	tempo  uint64

	mu       sync.Mutex
	head     uint64
	neurons  []chain.Neuron
	share    *chain.SubnetShare // nil: no StorageQuery precompile
	foreign  uint64             // transactions another process sent with the validator's key
	hyper    chain.Hyperparams
	calls    []fakeCall
	faults   map[string][]fault
	nonce    uint64
	mined    map[common.Hash]uint64 // tx hash -> block
	chainTxs []minedTx              // mined, in order
	signed   map[common.Hash]fakeTx // every transaction signed, mined or not
	commits  map[common.Hash]uint64 // commit hash -> block
	// weights is the validator's weights row as the chain holds it.
	weights chain.Weights
	// metaGate, when set, holds every Metagraph call until it is closed;
	// metaEntered receives one value per held call.
	metaGate    chan struct{}
	metaEntered chan struct{}
}

func newFakeChain(netuid uint16, tempo uint64, hyper chain.Hyperparams) *fakeChain {
	return &fakeChain{netuid: netuid, tempo: tempo, hyper: hyper, faults: map[string][]fault{},
		mined: map[common.Hash]uint64{}, signed: map[common.Hash]fakeTx{}, commits: map[common.Hash]uint64{}}
}

// setHead moves the chain to block n; transactions land in the head block.
func (f *fakeChain) setHead(n uint64) {
	f.mu.Lock()
	f.head = n
	f.mu.Unlock()
}

// setNeurons replaces the metagraph.
func (f *fakeChain) setNeurons(ns []chain.Neuron) {
	f.mu.Lock()
	f.neurons = slices.Clone(ns)
	f.mu.Unlock()
}

// addNeuron registers a neuron.
func (f *fakeChain) addNeuron(n chain.Neuron) {
	f.mu.Lock()
	f.neurons = append(f.neurons, n)
	f.mu.Unlock()
}

// updateNeuron edits one uid's neuron.
func (f *fakeChain) updateNeuron(uid uint16, edit func(*chain.Neuron)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.neurons {
		if f.neurons[i].UID == uid {
			edit(&f.neurons[i])
		}
	}
}

// fail queues faults for op: the next calls of op fail in that order.
func (f *fakeChain) fail(op string, fs ...fault) {
	f.mu.Lock()
	f.faults[op] = append(f.faults[op], fs...)
	f.mu.Unlock()
}

func (f *fakeChain) nextFault(op string) fault {
	q := f.faults[op]
	if len(q) == 0 {
		return 0
	}
	f.faults[op] = q[1:]
	return q[0]
}

// gateMetagraph holds Metagraph calls until the returned release is
// called; entered receives a value as each call is held.
func (f *fakeChain) gateMetagraph() (entered <-chan struct{}, release func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.metaGate, f.metaEntered = make(chan struct{}), make(chan struct{}, 64)
	gate := f.metaGate
	var once sync.Once
	return f.metaEntered, func() { once.Do(func() { close(gate) }) }
}

// callsOf returns the recorded calls of the given ops, in order.
func (f *fakeChain) callsOf(ops ...string) []fakeCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []fakeCall
	for _, c := range f.calls {
		if slices.Contains(ops, c.op) {
			out = append(out, c)
		}
	}
	return out
}

// onChain returns the mined transactions of op, in the order they landed.
func (f *fakeChain) onChain(op string) []minedTx {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []minedTx
	for _, m := range f.chainTxs {
		if m.tx.Op == op {
			out = append(out, m)
		}
	}
	return out
}

func (f *fakeChain) record(c fakeCall) {
	c.head = f.head
	f.calls = append(f.calls, c)
}

func (f *fakeChain) Metagraph(ctx context.Context, netuid uint16) (*chain.Metagraph, error) {
	f.mu.Lock()
	gate, entered := f.metaGate, f.metaEntered
	f.mu.Unlock()
	if gate != nil {
		entered <- struct{}{}
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.nextFault("metagraph") != 0 {
		f.record(fakeCall{op: "metagraph", err: errUnreachable})
		return nil, errUnreachable
	}
	f.record(fakeCall{op: "metagraph"})
	return &chain.Metagraph{Netuid: netuid, Block: f.head, Neurons: slices.Clone(f.neurons)}, nil
}

func (f *fakeChain) Hyperparams(ctx context.Context, netuid uint16) (*chain.Hyperparams, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.nextFault("hyperparams") != 0 {
		f.record(fakeCall{op: "hyperparams", err: errUnreachable})
		return nil, errUnreachable
	}
	f.record(fakeCall{op: "hyperparams"})
	h := f.hyper
	return &h, nil
}

func (f *fakeChain) SetWeights(ctx context.Context, signer *chain.Signer, w chain.Weights, opts chain.TxOptions) (*chain.TxResult, error) {
	return f.transact(fakeCall{op: "setWeights", weights: w}, signer, opts, func(self *chain.Neuron) error {
		if f.hyper.CommitRevealEnabled {
			return &chain.RejectedError{Op: "setWeights", OnChain: true, Reason: chain.ErrCommitRevealEnabled}
		}
		if self.LastUpdate != 0 && f.head < self.LastUpdate+f.hyper.WeightsSetRateLimit {
			return &chain.RejectedError{Op: "setWeights", Reason: chain.ErrRateLimited,
				Detail: fmt.Sprintf("block %d, last update %d", f.head, self.LastUpdate)}
		}
		return nil
	}, func(self *chain.Neuron) {
		self.LastUpdate, f.weights = f.head, w
	})
}

func (f *fakeChain) CommitWeights(ctx context.Context, signer *chain.Signer, netuid uint16, hash [32]byte, opts chain.TxOptions) (*chain.TxResult, error) {
	return f.transact(fakeCall{op: "commitWeights", commit: hash, weights: chain.Weights{Netuid: netuid}}, signer, opts, func(*chain.Neuron) error {
		if !f.hyper.CommitRevealEnabled {
			return &chain.RejectedError{Op: "commitWeights", OnChain: true, Reason: chain.ErrCommitRevealOff}
		}
		return nil
	}, func(*chain.Neuron) {
		f.commits[hash] = f.head
	})
}

func (f *fakeChain) RevealWeights(ctx context.Context, signer *chain.Signer, w chain.Weights, salt []uint16, opts chain.TxOptions) (*chain.TxResult, error) {
	hash := common.Hash(chain.CommitHash(signer.Hotkey(), w.Netuid, w.UIDs, w.Values, salt, w.VersionKey))
	return f.transact(fakeCall{op: "revealWeights", weights: w, commit: hash}, signer, opts, func(*chain.Neuron) error {
		at, ok := f.commits[hash]
		switch {
		case !f.hyper.CommitRevealEnabled:
			return &chain.RejectedError{Op: "revealWeights", OnChain: true, Reason: chain.ErrCommitRevealOff}
		case !ok && len(f.commits) > 0:
			return &chain.RejectedError{Op: "revealWeights", OnChain: true, Reason: chain.ErrCommitMismatch}
		case !ok:
			return &chain.RejectedError{Op: "revealWeights", OnChain: true, Reason: chain.ErrNoCommit}
		}
		due, now := chain.EpochIndex(at, f.netuid, f.tempo)+f.hyper.CommitRevealInterval, chain.EpochIndex(f.head, f.netuid, f.tempo)
		switch {
		case now < due:
			return &chain.RejectedError{Op: "revealWeights", OnChain: true, Reason: chain.ErrRevealTooEarly}
		case now > due:
			return &chain.RejectedError{Op: "revealWeights", OnChain: true, Reason: chain.ErrRevealExpired}
		}
		return nil
	}, func(self *chain.Neuron) {
		delete(f.commits, hash)
		self.LastUpdate, f.weights = f.head, w
	})
}

// transact runs one weights transaction: a queued fault, the chain's
// rule, signing (handing the transaction to BeforeSend), and the effect.
func (f *fakeChain) transact(c fakeCall, signer *chain.Signer, opts chain.TxOptions, rule func(self *chain.Neuron) error, apply func(self *chain.Neuron)) (*chain.TxResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fail := f.nextFault(c.op)
	if fail == faultUnreachable {
		c.err = errUnreachable
		f.record(c)
		return nil, c.err
	}
	self := f.neuron(signer.Hotkey())
	if self == nil {
		c.err = &chain.RejectedError{Op: c.op, Reason: chain.ErrNotRegistered}
		f.record(c)
		return nil, c.err
	}
	if err := rule(self); err != nil {
		c.err = err
		f.record(c)
		return nil, err
	}
	tx := fakeTx{Op: c.op, Nonce: f.nonce, From: signer.Address.Hex(), Netuid: c.weights.Netuid, UIDs: c.weights.UIDs,
		Values: c.weights.Values, Commit: c.commit}
	raw, err := json.Marshal(tx)
	if err != nil {
		return nil, err
	}
	c.tx = crypto.Keccak256Hash(raw)
	f.signed[c.tx] = tx
	if opts.BeforeSend != nil {
		if err := opts.BeforeSend(c.tx, raw); err != nil {
			c.err = err
			f.record(c)
			return nil, err
		}
	}
	f.nonce++
	if fail == faultReverted {
		f.mined[c.tx] = f.head
		c.err = fmt.Errorf("%s tx %s failed in block %d", c.op, c.tx, f.head)
		f.record(c)
		return &chain.TxResult{Hash: c.tx, Block: f.head}, c.err
	}
	apply(self)
	f.mined[c.tx] = f.head
	f.chainTxs = append(f.chainTxs, minedTx{hash: c.tx, block: f.head, tx: tx})
	if fail == faultReceiptLost {
		c.err = fmt.Errorf("%s tx %s: receipt: connection reset", c.op, c.tx)
		f.record(c)
		return nil, c.err
	}
	f.record(c)
	return &chain.TxResult{Hash: c.tx, Block: f.head}, nil
}

// ResumeTx settles a transaction it signed: mined, its block; otherwise
// unusable (the fake chain mines everything it broadcasts).
func (f *fakeChain) ResumeTx(ctx context.Context, op string, raw []byte) (*chain.TxResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	hash := crypto.Keccak256Hash(raw)
	c := fakeCall{op: "resumeTx", tx: hash}
	if f.nextFault("resumeTx") == faultUnreachable {
		c.err = errUnreachable
		f.record(c)
		return nil, c.err
	}
	block, ok := f.mined[hash]
	if !ok {
		c.err = fmt.Errorf("%s: %w: not a transaction of this chain", op, chain.ErrTxUnusable)
		f.record(c)
		return nil, c.err
	}
	f.record(c)
	return &chain.TxResult{Hash: hash, Block: block}, nil
}

func (f *fakeChain) neuron(hotkey chain.AccountID) *chain.Neuron {
	for i := range f.neurons {
		if f.neurons[i].Hotkey == hotkey {
			return &f.neurons[i]
		}
	}
	return nil
}

// EpochSchedule answers as a runtime without the StorageQuery
// precompile: the validator falls back to the legacy epoch formula, which
// the fake's commit-reveal uses too.
func (f *fakeChain) EpochSchedule(context.Context, uint16, uint64) (chain.EpochSchedule, error) {
	return chain.EpochSchedule{}, chain.ErrNoStorageQuery
}

// SubnetShare answers as a runtime without the StorageQuery precompile,
// unless the test set a share.
func (f *fakeChain) SubnetShare(context.Context, uint16, uint64) (chain.SubnetShare, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.share == nil {
		return chain.SubnetShare{}, chain.ErrNoStorageQuery
	}
	return *f.share, nil
}

// CheckSigner reports the foreign transactions a test injected.
func (f *fakeChain) CheckSigner(_ context.Context, signer *chain.Signer) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.foreign == 0 {
		return nil
	}
	return &chain.KeyInUseError{Address: signer.Address, Next: f.nonce, Mined: f.nonce + f.foreign, Pending: f.nonce + f.foreign}
}

// neuronByUID is uid's neuron, or nil.
func (f *fakeChain) neuronByUID(uid uint16) *chain.Neuron {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.neurons {
		if f.neurons[i].UID == uid {
			n := f.neurons[i]
			return &n
		}
	}
	return nil
}

// fakeHeads is a HeadSource the test feeds.
type fakeHeads struct{ ch chan chain.Head }

func (h *fakeHeads) Run(ctx context.Context) error {
	<-ctx.Done()
	return nil
}

func (h *fakeHeads) Heads() <-chan chain.Head { return h.ch }

var _ Chain = (*fakeChain)(nil)
