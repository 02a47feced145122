package validator

import (
	"context"
	"errors"

	"arena/chain"
)

// Commit-reveal counts epochs with the subnet's SubnetEpochIndex (subtensor
// since dynamic tempo: an epoch fires Tempo blocks after the last one, at an
// owner-triggered PendingEpochAt, or on a safety net), read through the
// StorageQuery precompile at the block in question. A chain without that
// precompile is an older runtime, whose epochs are the legacy
// (block + netuid + 1) / (tempo + 1) with the configured chain.tempo.

// epochView is where a head stands in commit-reveal epochs.
type epochView struct {
	// head is the epoch of the head's state: what the node's gas estimate
	// and preflight of a transaction sent now see.
	head uint64
	// landing is the epoch of the block after head, where a transaction
	// sent now lands (current_epoch_with_lookahead there).
	landing uint64
	// fromChain is false on the legacy fallback, whose epochs are only an
	// estimate from chain.tempo.
	fromChain bool
}

// epochsAt reads where head stands: from the chain's epoch schedule, or,
// when the chain has no StorageQuery precompile, from chain.tempo with the
// legacy formula (one warning says so).
func (v *Validator) epochsAt(ctx context.Context, head uint64) (epochView, error) {
	s, err := v.opts.Chain.EpochSchedule(ctx, v.opts.Netuid, head)
	if err == nil {
		v.noteSchedule(s)
		return epochView{head: s.EpochIndex, landing: s.TxEpoch(head + 1), fromChain: true}, nil
	}
	if errors.Is(err, chain.ErrNoStorageQuery) {
		v.legacyEpochs()
		e := chain.EpochIndex(head, v.opts.Netuid, v.opts.Tempo)
		return epochView{head: e, landing: e}, nil
	}
	return epochView{}, err
}

// epochOf is the commit-reveal epoch of a transaction included in block b
// (read at b, whose state already counts an epoch that fired in b).
func (v *Validator) epochOf(ctx context.Context, b uint64) (uint64, error) {
	s, err := v.opts.Chain.EpochSchedule(ctx, v.opts.Netuid, b)
	if err == nil {
		return s.EpochIndex, nil
	}
	if errors.Is(err, chain.ErrNoStorageQuery) {
		v.legacyEpochs()
		return chain.EpochIndex(b, v.opts.Netuid, v.opts.Tempo), nil
	}
	return 0, err
}

// legacyEpochs says once that epochs come from chain.tempo.
func (v *Validator) legacyEpochs() {
	v.legacyEpochsOnce.Do(func() {
		v.log.Warn().Uint64("tempo", v.opts.Tempo).
			Msg("the chain has no StorageQuery precompile (0x807): commit-reveal epochs are computed from chain.tempo with the legacy formula (block + netuid + 1) / (tempo + 1)")
	})
}

// noteSchedule exports the chain's epoch schedule as metrics.
func (v *Validator) noteSchedule(s chain.EpochSchedule) {
	v.mu.Lock()
	v.schedule = &s
	v.mu.Unlock()
	v.m.epochIndex.Set(float64(s.EpochIndex))
	v.m.tempo.Set(float64(s.Tempo))
	if next, ok := s.NextEpoch(); ok {
		v.m.nextEpochBlock.Set(float64(next))
	}
}

// noteShare reads the subnet's epoch schedule, mechanism count and
// MinerBurned at a sync:
// metrics, the status document, and one warning each for what costs this
// validator's weights their effect or the subnet its emission. A chain
// without the StorageQuery precompile has neither (nothing to say); a
// failed read is retried at the next sync.
func (v *Validator) noteShare(ctx context.Context, block uint64) {
	if s, err := v.opts.Chain.EpochSchedule(ctx, v.opts.Netuid, block); err == nil {
		v.noteSchedule(s)
	}
	sh, err := v.opts.Chain.SubnetShare(ctx, v.opts.Netuid, block)
	if err != nil {
		if !errors.Is(err, chain.ErrNoStorageQuery) {
			v.log.Debug().Err(err).Uint64("block", block).Msg("subnet mechanisms and miner burn not read")
		}
		return
	}
	v.mu.Lock()
	v.share = &sh
	v.mu.Unlock()
	v.m.mechanisms.Set(float64(sh.Mechanisms))
	v.m.minerBurned.Set(sh.MinerBurned)
	if sh.Mechanisms > 1 {
		v.mechanismsOnce.Do(func() {
			v.log.Warn().Uint8("mechanisms", sh.Mechanisms).
				Msg("the subnet has several mechanisms: weights set over EVM reach mechanism 0 only, so mechanisms 1 and up get no weights from this validator")
		})
	}
	if f := v.opts.Weights.BurnFraction; f > 0 {
		v.burnOnce.Do(func() {
			v.log.Warn().Float64("burn_fraction", f).Uint16("burn_uid", v.opts.Weights.BurnUID).Float64("miner_burned", sh.MinerBurned).
				Msgf("weights.burn_fraction sends %.0f%% of miner emission to uid %d; subtensor weighs the subnet's share of emission by 1 - MinerBurned, so if validators agree the subnet earns about %.0f%% less emission relative to other subnets (docs/operations.md, \"Burn and emission\")",
					100*f, v.opts.Weights.BurnUID, 100*f)
		})
	}
}
