package devnet

import (
	"context"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/core/types"

	"arena/chain/devnet/contracts"
)

// URL is the websocket endpoint clients dial.
func (d *Devnet) URL() string { return "ws://" + d.relay.address() }

// HTTPURL is the same endpoint over plain HTTP JSON-RPC.
func (d *Devnet) HTTPURL() string { return "http://" + d.relay.address() }

// Netuid is the devnet's subnet.
func (d *Devnet) Netuid() uint16 { return d.opts.Netuid }

// Tempo is the subnet's epoch length in blocks: Options.Tempo, or what SetTempo set last.
func (d *Devnet) Tempo() uint64 { return d.tempo.Load() }

// Admin is the subnet owner and devnet administrator.
func (d *Devnet) Admin() Account { return d.admin }

// Accounts returns the registered validators and miners, in uid order.
func (d *Devnet) Accounts() []Account { return append([]Account(nil), d.accounts...) }

// ByRole filters Accounts.
func (d *Devnet) ByRole(role string) []Account {
	var out []Account
	for _, a := range d.accounts {
		if a.Role == role {
			out = append(out, a)
		}
	}
	return out
}

// Start opens the RPC endpoint without starting the block loop; tests in
// manual-block mode use it with Commit.
func (d *Devnet) Start() error { return d.relay.start() }

// Run serves RPC and, when BlockTime > 0, commits a block every BlockTime
// until ctx ends. It does not close the chain; call Close after it returns.
func (d *Devnet) Run(ctx context.Context) error {
	if err := d.relay.start(); err != nil {
		return err
	}
	defer d.relay.stop()
	d.log.Info().Str("url", d.URL()).Dur("block_time_ms", d.opts.BlockTime).Uint16("netuid", d.opts.Netuid).
		Uint64("tempo", d.Tempo()).Msg("devnet serving")
	if d.opts.BlockTime <= 0 {
		<-ctx.Done()
		return nil
	}
	d.mu.Lock()
	d.mining = true
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		d.mining = false
		d.mu.Unlock()
	}()
	ticker := time.NewTicker(d.opts.BlockTime)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
			d.Commit()
		}
	}
}

// StopServer takes the RPC endpoint down: new dials are refused and open
// websockets drop. The chain keeps producing blocks.
func (d *Devnet) StopServer() { d.relay.stop() }

// StartServer brings the endpoint back on the same address.
func (d *Devnet) StartServer() error { return d.relay.start() }

// Serving reports whether the endpoint is up.
func (d *Devnet) Serving() bool { return d.relay.running() }

// Close stops the endpoint and the chain.
func (d *Devnet) Close() error {
	d.relay.stop()
	return d.backend.Close()
}

// Commit seals a block with the pending transactions and returns its
// number. When an epoch fires in the block (SubnetEpochIndex moved, see
// contracts' doc) it also runs the devnet's Yuma pass, whose results land in
// the next block.
func (d *Devnet) Commit() uint64 {
	d.mu.Lock()
	hash := d.backend.Commit()
	d.mu.Unlock()
	d.blocks.Inc()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	header, err := d.client.HeaderByHash(ctx, hash)
	if err != nil {
		d.log.Error().Err(err).Msg("reading committed block")
		return 0
	}
	num := header.Number.Uint64()
	d.epochMu.Lock()
	defer d.epochMu.Unlock()
	fired, index, err := d.epochFired(ctx, num)
	if err != nil {
		d.log.Error().Err(err).Uint64("block", num).Msg("reading the epoch schedule")
		return num
	}
	if fired {
		d.seenEpoch = index
		if err := d.runEpoch(ctx, num); err != nil {
			d.log.Error().Err(err).Uint64("block", num).Msg("yuma epoch failed")
		}
	}
	return num
}

// AdvanceBlocks commits n blocks (manual mode) and returns the last number.
func (d *Devnet) AdvanceBlocks(n int) uint64 {
	var last uint64
	for range n {
		last = d.Commit()
	}
	return last
}

// epochFired reports whether SubnetEpochIndex at block is past the last epoch Yuma ran for.
// Commit checks every block, so an epoch found here fired in block itself. The caller holds
// epochMu.
func (d *Devnet) epochFired(ctx context.Context, block uint64) (bool, uint64, error) {
	res, err := d.state.StorageItem(&bind.CallOpts{Context: ctx, BlockNumber: bigUint(block)},
		contracts.ItemSubnetEpochIndex, d.opts.Netuid)
	if err != nil {
		return false, 0, err
	}
	index := res.Value.Uint64()
	return index > d.seenEpoch, index, nil
}

// runEpoch computes Yuma from the state at block and sends the results as
// an admin transaction without waiting (it is mined in the next block, and
// waiting here would stall the block loop that mines it).
func (d *Devnet) runEpoch(ctx context.Context, block uint64) error {
	in, err := d.readYumaInput(ctx, block)
	if err != nil {
		return err
	}
	out := Yuma(in)
	tx, err := d.sendAdmin(ctx, "setEpochResults", func(o *bind.TransactOpts) (*types.Transaction, error) {
		return d.state.SetEpochResults(o, d.opts.Netuid, toU16s(out.Rank), toU16s(out.Trust), toU16s(out.Consensus),
			toU16s(out.Incentive), toU16s(out.Dividends), toU16s(out.Vtrust), out.Emission)
	})
	if err != nil {
		return err
	}
	d.epochs.Inc()
	d.log.Debug().Uint64("block", block).Stringer("tx", tx.Hash()).Msg("yuma epoch")
	return nil
}

func (d *Devnet) readYumaInput(ctx context.Context, block uint64) (YumaInput, error) {
	call := &bind.CallOpts{Context: ctx, BlockNumber: bigUint(block)}
	count, err := d.state.GetUidCount(call, d.opts.Netuid)
	if err != nil {
		return YumaInput{}, fmt.Errorf("uid count: %w", err)
	}
	in := YumaInput{
		Stake: make([]uint64, count), Permit: make([]bool, count), Weights: make([][]Weight, count),
		Kappa: 0.5, Emission: d.Tempo() * TAO,
	}
	for uid := range count {
		info, err := d.state.NeuronInfo(call, d.opts.Netuid, uid)
		if err != nil {
			return in, fmt.Errorf("neuron %d: %w", uid, err)
		}
		in.Stake[uid], in.Permit[uid] = info.Stake, info.ValidatorPermit
		if !info.ValidatorPermit {
			continue
		}
		row, err := d.state.GetWeights(call, d.opts.Netuid, uid)
		if err != nil {
			return in, fmt.Errorf("weights of %d: %w", uid, err)
		}
		for k := range row.Uids {
			in.Weights[uid] = append(in.Weights[uid], Weight{UID: row.Uids[k], Value: row.Values[k]})
		}
	}
	return in, nil
}

// Weights returns the row uid last set (or revealed), from the chain state.
func (d *Devnet) Weights(ctx context.Context, uid uint16) ([]Weight, error) {
	row, err := d.state.GetWeights(&bind.CallOpts{Context: ctx}, d.opts.Netuid, uid)
	if err != nil {
		return nil, fmt.Errorf("devnet weights of uid %d: %w", uid, err)
	}
	out := make([]Weight, len(row.Uids))
	for i := range row.Uids {
		out[i] = Weight{UID: row.Uids[i], Value: row.Values[i]}
	}
	return out, nil
}

// WeightEvents counts the weights events the chain logged for uid on the
// devnet's subnet: direct sets, commits and reveals. Tests compare them
// with what a validator recorded, to prove each submission reached the
// chain exactly once.
type WeightEvents struct{ Set, Committed, Revealed int }

// WeightEvents reads every weights event for uid since genesis.
func (d *Devnet) WeightEvents(ctx context.Context, uid uint16) (WeightEvents, error) {
	var out WeightEvents
	opts := &bind.FilterOpts{Context: ctx}
	netuid := []uint16{d.opts.Netuid}
	count := func(it eventIterator, err error, uidOf func() uint16) (int, error) {
		if err != nil {
			return 0, err
		}
		defer it.Close()
		n := 0
		for it.Next() {
			if uidOf() == uid {
				n++
			}
		}
		return n, it.Error()
	}
	sets, err := d.state.FilterWeightsSet(opts, netuid)
	if out.Set, err = count(sets, err, func() uint16 { return sets.Event.Uid }); err != nil {
		return out, fmt.Errorf("devnet: WeightsSet events: %w", err)
	}
	commits, err := d.state.FilterWeightsCommitted(opts, netuid)
	if out.Committed, err = count(commits, err, func() uint16 { return commits.Event.Uid }); err != nil {
		return out, fmt.Errorf("devnet: WeightsCommitted events: %w", err)
	}
	reveals, err := d.state.FilterWeightsRevealed(opts, netuid)
	if out.Revealed, err = count(reveals, err, func() uint16 { return reveals.Event.Uid }); err != nil {
		return out, fmt.Errorf("devnet: WeightsRevealed events: %w", err)
	}
	return out, nil
}

// eventIterator is what abigen's event iterators have in common.
type eventIterator interface {
	Next() bool
	Error() error
	Close() error
}

// Head is the latest block number, read in-process (it works while the
// public endpoint is stopped).
func (d *Devnet) Head(ctx context.Context) (uint64, error) {
	return d.client.BlockNumber(ctx)
}

// WaitForBlock returns once the chain has reached block n, watching heads
// in-process (it works while the public endpoint is stopped).
func (d *Devnet) WaitForBlock(ctx context.Context, n uint64) error {
	heads := make(chan *types.Header, 16)
	sub, err := d.client.SubscribeNewHead(ctx, heads)
	if err != nil {
		return fmt.Errorf("devnet: subscribe heads: %w", err)
	}
	defer sub.Unsubscribe()
	head, err := d.client.BlockNumber(ctx)
	if err != nil {
		return fmt.Errorf("devnet: head: %w", err)
	}
	for head < n {
		select {
		case h := <-heads:
			head = h.Number.Uint64()
		case err := <-sub.Err():
			return fmt.Errorf("devnet: head subscription: %w", err)
		case <-ctx.Done():
			return fmt.Errorf("devnet: waiting for block %d (at %d): %w", n, head, ctx.Err())
		}
	}
	return nil
}
