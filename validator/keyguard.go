package validator

import (
	"context"
	"errors"
	"fmt"

	"arena/chain"
	"arena/validator/records"
)

// One key, one validator. Two processes signing with one key (two data
// dirs, a forgotten test instance) replace or duplicate each other's
// weights, and which one lands is luck. Before each weights transaction
// the validator looks for another signer: the account's nonce gone past
// the next one this process would use (chain.CheckSigner), or a
// last_update on chain that none of its own settled transactions explains.
// Then it sets no more weights, says so once, fails /readyz and sets
// arena_validator_key_in_use; if the other signer is still active at a
// later step, or the conflict is not resolved within keyConflictWindows
// weights windows (the other process may have stopped its weights too),
// it stops the process with an error, as slashing protection refuses to
// sign rather than risk it.

// keyConflict is a detected second signer.
type keyConflict struct {
	reason string
	// mined, pending and lastUpdate are what was seen when it was
	// detected; a later step that sees any of them move on finds the
	// other signer still active.
	mined, pending, lastUpdate uint64
	// block is the head it was detected at.
	block uint64
}

// keyConflictWindows is how many weights windows a key conflict may last
// before the process exits.
const keyConflictWindows = 3

// ErrKeyInUse ends Run when another process keeps signing with this
// validator's key.
var ErrKeyInUse = errors.New("another process sets weights with this validator's key")

// guardKey checks for another signer before a weights transaction, and,
// once one was found, at every weights step for whether it is still
// active. It returns false when no transaction may be sent.
func (v *Validator) guardKey(ctx context.Context, block, lastUpdate uint64, subs []records.Submission) bool {
	var kiu *chain.KeyInUseError
	err := v.opts.Chain.CheckSigner(ctx, v.opts.Signer)
	switch {
	case errors.As(err, &kiu):
	case err != nil:
		v.log.Debug().Err(err).Msg("signer check failed; trying again next step")
		return false
	}
	ours := v.lastUpdateBaseline
	unsettled := false
	for _, s := range subs {
		ours = max(ours, s.Block, s.RevealBlock)
		unsettled = unsettled || s.Status == records.StatusPending || s.Status == records.StatusCommitted
	}
	foreignUpdate := !unsettled && lastUpdate > ours

	prev := v.keyConflict.Load()
	if prev != nil {
		moved := lastUpdate > prev.lastUpdate
		if kiu != nil {
			moved = moved || kiu.Mined > prev.mined || kiu.Pending > prev.pending
		}
		expired := block >= prev.block+keyConflictWindows*v.opts.WeightsEveryBlocks
		if (moved || expired) && v.keyFatalOnce.CompareAndSwap(false, true) {
			why := "and it is still sending"
			if !moved {
				why = fmt.Sprintf("not resolved within %d weights windows", keyConflictWindows)
			}
			select {
			case v.fatal <- fmt.Errorf("%w (%s; %s); stop the other process, then start this one again", ErrKeyInUse, prev.reason, why):
			default:
			}
		}
		return false
	}
	if kiu == nil && !foreignUpdate {
		return true
	}
	c := &keyConflict{lastUpdate: lastUpdate, block: block}
	if kiu != nil {
		c.reason, c.mined, c.pending = kiu.Error(), kiu.Mined, kiu.Pending
	} else {
		c.reason = fmt.Sprintf("this validator's last_update on chain is block %d, but its own weights last landed in block %d", lastUpdate, ours)
	}
	if v.keyConflict.CompareAndSwap(nil, c) {
		v.m.keyInUse.Set(1)
		v.log.Error().Str("reason", c.reason).Str("address", v.opts.Signer.Address.Hex()).
			Msg("another process signs with this validator's key: no more weights from this one (/readyz fails); stop the other process and restart this one. If it keeps sending, this process exits")
		v.emit(Event{Kind: EventWeightsFailed, Text: "another process signs with this key: " + c.reason})
	}
	return false
}
