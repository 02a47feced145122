package validator

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/ethereum/go-ethereum/common"

	"arena/chain"
	"arena/scoring/weights"
	"arena/validator/records"
)

// saltLen is the number of u16 words in a commit-reveal salt, as the
// Python SDK uses.
const saltLen = 8

// scheduleWeights reveals due commits and, when the window and the rate
// limit allow, submits the policy's weights for the latest race.
func (v *Validator) scheduleWeights(ctx context.Context, block uint64) {
	meta, hyper, self := v.snapshot()
	if meta == nil || hyper == nil || self < 0 {
		return
	}
	v.mu.Lock()
	if v.weightBusy {
		v.mu.Unlock()
		return
	}
	v.weightBusy = true
	v.mu.Unlock()
	v.spawn(func() {
		defer func() {
			v.mu.Lock()
			v.weightBusy = false
			v.mu.Unlock()
		}()
		// A step already under way may finish its one transaction after a
		// shutdown begins: abandoned mid-send, its submission would stay
		// pending until the next start settles it from the chain, which
		// may be too late for a reveal's epoch.
		if ctx.Err() != nil {
			return // no new transaction once shutdown has begun
		}
		txCtx, cancel := settleContext(ctx, txShutdownGrace)
		defer cancel()
		err := v.weightsStep(txCtx, block, meta, hyper, uint16(self))
		switch {
		case err != nil && ctx.Err() == nil:
			v.log.Error().Err(err).Uint64("block", block).Msg("weights")
		case err != nil && txCtx.Err() != nil:
			v.log.Warn().Err(err).Dur("grace_ms", txShutdownGrace).Msg("weights transaction did not settle before shutdown; the next start settles it from the chain")
		}
	})
}

// txShutdownGrace bounds how long a shutdown waits for a weights
// transaction in flight: two of finney's 12 s blocks and a margin, well
// inside the unit's TimeoutStopSec=90.
const txShutdownGrace = 45 * time.Second

// settleContext returns a context that outlives parent by grace: it is
// cancelled grace after parent is, or when cancel is called.
func settleContext(parent context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(parent))
	stop := context.AfterFunc(parent, func() {
		timer := time.NewTimer(grace)
		defer timer.Stop()
		select {
		case <-timer.C:
			cancel()
		case <-ctx.Done():
		}
	})
	return ctx, func() {
		stop()
		cancel()
	}
}

// weightsStep does at most one chain transaction per call: a reveal that
// is due, the retry of a pending submission, or a new submission.
func (v *Validator) weightsStep(ctx context.Context, block uint64, meta *chain.Metagraph, hyper *chain.Hyperparams, self uint16) error {
	var subs []records.Submission
	var st records.RaceState
	if err := v.opts.Store.View(func(txn *badger.Txn) (err error) {
		if subs, err = v.rec.ListSubmissions(txn); err != nil {
			return err
		}
		// Only this chain era's: an earlier era's windows and blocks count
		// on a chain that is gone.
		subs = slices.DeleteFunc(subs, func(s records.Submission) bool { return s.Era != v.era })
		st, err = v.rec.GetState(txn)
		return err
	}); err != nil {
		return err
	}
	interval := max(hyper.WeightsSetRateLimit, v.opts.WeightsEveryBlocks)
	v.m.weightsInterval.Set(float64(interval))
	v.m.activityCutoff.Set(float64(hyper.ActivityCutoff))
	lastUpdate := uint64(0)
	if n, ok := neuronByUID(meta, self); ok {
		lastUpdate = n.LastUpdate
	}
	// Set before any wait below (a commit awaiting its reveal, a key in
	// use elsewhere), which is when an alert on it matters.
	if block >= lastUpdate {
		v.m.sinceWeights.Set(float64(block - lastUpdate))
	}
	// What was on chain before this process sent anything is not evidence
	// of another signer.
	v.baselineOnce.Do(func() { v.lastUpdateBaseline = lastUpdate })
	if v.keyConflict.Load() != nil {
		v.guardKey(ctx, block, lastUpdate, subs) // is the other signer still at it?
		return nil
	}
	lastSent := lastUpdate
	var ep epochView
	if hyper.CommitRevealEnabled || hasCommitted(subs) {
		var err error
		if ep, err = v.epochsAt(ctx, block); err != nil {
			return fmt.Errorf("epoch schedule: %w", err)
		}
	}
	epoch := ep.head
	for i := range subs {
		s := &subs[i]
		lastSent = max(lastSent, s.Block, s.RevealBlock)
		switch {
		case s.Status == records.StatusCommitted && epoch > s.RevealEpoch:
			// The chain accepts a reveal only in the reveal epoch itself;
			// sending now would only revert. A reveal that landed just
			// before a restart shows in last_update.
			if at, ok := v.revealedSince(ctx, s.Block); ok {
				s.Status, s.RevealBlock, s.RevealTxHash = records.StatusRevealed, at, "unknown (confirmed by last_update)"
				return v.putSubmission(s)
			}
			s.Status, s.Error = records.StatusFailed, fmt.Sprintf("reveal epoch %d passed (now epoch %d) before the reveal was sent", s.RevealEpoch, epoch)
			v.m.submissions.WithLabelValues("reveal", "expired").Inc()
			v.log.Warn().Uint64("window", s.Window).Uint64("reveal_epoch", s.RevealEpoch).Uint64("epoch", epoch).Msg("weights commit expired unrevealed")
			v.emit(Event{Kind: EventWeightsFailed, Block: block, Text: "weights commit expired: " + s.Error})
			return v.putSubmission(s)
		case s.Status == records.StatusCommitted && epoch == s.RevealEpoch && ep.landing == s.RevealEpoch:
			// Both the node's preflight (the head's state) and the block the
			// reveal lands in must be in the reveal epoch; on the last block
			// of the epoch there is no such moment, and the commit expires.
			if !v.guardKey(ctx, block, lastUpdate, subs) {
				return nil
			}
			return v.reveal(ctx, s, ep.fromChain)
		case s.Status == records.StatusCommitted:
			return nil // one commit at a time: wait for its reveal
		case s.Status == records.StatusPending:
			return v.retryPending(ctx, s, hyper)
		}
	}
	window := block / v.opts.WeightsEveryBlocks
	if len(subs) > 0 && subs[len(subs)-1].Window >= window {
		return nil // never twice in one window
	}
	if lastSent > 0 && block < lastSent+interval {
		return nil
	}
	// Only now, with a transaction about to go out, is the chain asked
	// whether another process signs with this key.
	if !v.guardKey(ctx, block, lastUpdate, subs) {
		return nil
	}
	n := len(meta.Neurons)
	vec, err := v.opts.Weights.Vector(st.Ranked, n)
	if err != nil {
		return fmt.Errorf("weights policy: %w", err)
	}
	uids := make([]uint16, n)
	for i := range uids {
		uids[i] = uint16(i)
	}
	maxLimit := float32(chain.U16ToFloat(hyper.MaxWeightLimit))
	outUIDs, values, err := weights.EmitWeightsForNetuid(uids, vec, n, int(hyper.MinAllowedWeights), maxLimit, 0)
	if err != nil {
		return fmt.Errorf("weights conversion: %w", err)
	}
	sub := records.Submission{Era: v.era, Window: window, Op: "set", Status: records.StatusPending, RaceID: st.RankedRace,
		UIDs: outUIDs, Values: values, VersionKey: hyper.WeightsVersionKey, CreatedBlock: block}
	if hyper.CommitRevealEnabled {
		sub.Op = "commit"
		sub.Salt = newSalt()
		sub.CommitHash = common.Hash(chain.CommitHash(v.opts.Signer.Hotkey(), v.opts.Netuid, outUIDs, values, sub.Salt, sub.VersionKey)).Hex()
	}
	// The submission (with its salt) is durable before the transaction is
	// sent, so a crash can neither lose a commit's salt nor send twice.
	if err := v.putSubmission(&sub); err != nil {
		return err
	}
	return v.send(ctx, &sub, hyper)
}

// send signs and submits a pending submission and records the outcome.
// The signed transaction is made durable before its broadcast, so that a
// restart settles it from the chain (retryPending) instead of guessing
// whether it landed.
func (v *Validator) send(ctx context.Context, sub *records.Submission, hyper *chain.Hyperparams) error {
	opts := chain.TxOptions{BeforeSend: func(hash common.Hash, raw []byte) error {
		sub.TxHash, sub.RawTx = hash.Hex(), hex.EncodeToString(raw)
		return v.putSubmission(sub)
	}}
	var (
		res *chain.TxResult
		err error
	)
	if sub.Op == "commit" {
		res, err = v.opts.Chain.CommitWeights(ctx, v.opts.Signer, v.opts.Netuid, common.HexToHash(sub.CommitHash), opts)
	} else {
		w := chain.Weights{Netuid: v.opts.Netuid, UIDs: sub.UIDs, Values: sub.Values, VersionKey: sub.VersionKey}
		res, err = v.opts.Chain.SetWeights(ctx, v.opts.Signer, w, opts)
	}
	return v.record(ctx, sub, hyper, res, err)
}

// record stores the outcome of a submission's transaction.
func (v *Validator) record(ctx context.Context, sub *records.Submission, hyper *chain.Hyperparams, res *chain.TxResult, err error) error {
	if err != nil {
		var rej *chain.RejectedError
		if errors.As(err, &rej) {
			v.m.submissions.WithLabelValues(sub.Op, "rejected").Inc()
			if errors.Is(err, chain.ErrRateLimited) && !rej.OnChain {
				// Not sent: drop the pending record so the next block retries.
				return v.opts.Store.Update(func(txn *badger.Txn) error {
					return v.rec.Submissions.Delete(txn, v.rec.SubmissionKey(sub.Era, sub.Window))
				})
			}
			sub.Status, sub.Error, sub.RawTx = records.StatusFailed, err.Error(), ""
			v.emit(Event{Kind: EventWeightsFailed, Block: sub.CreatedBlock, Text: "weights refused: " + err.Error()})
			return errors.Join(v.putSubmission(sub), err)
		}
		if res != nil && res.Block > 0 {
			// Mined but reverted for a reason the client could not name:
			// its nonce is spent and asking the chain again gives the same
			// receipt, so it is final.
			v.m.submissions.WithLabelValues(sub.Op, "rejected").Inc()
			sub.Status, sub.Error, sub.RawTx = records.StatusFailed, err.Error(), ""
			sub.TxHash, sub.Block = res.Hash.Hex(), res.Block
			v.emit(Event{Kind: EventWeightsFailed, Block: res.Block, Text: "weights transaction failed: " + err.Error()})
			return errors.Join(v.putSubmission(sub), err)
		}
		v.m.submissions.WithLabelValues(sub.Op, "error").Inc()
		return fmt.Errorf("%s (left pending; settled from the chain next block): %w", sub.Op, err)
	}
	v.m.submissions.WithLabelValues(sub.Op, "ok").Inc()
	sub.TxHash, sub.Block, sub.RawTx = res.Hash.Hex(), res.Block, ""
	if sub.Op == "commit" {
		sub.Status = records.StatusCommitted
		commitEpoch, err := v.epochOf(ctx, res.Block)
		if err != nil {
			// The commit landed; only its epoch is unknown. Counting from
			// the head's lands within one epoch of it, and a reveal the
			// chain finds early is retried an epoch later.
			v.log.Warn().Err(err).Uint64("block", res.Block).Msg("epoch of the weights commit not read; counting from the next head's")
			ev, _ := v.epochsAt(ctx, res.Block)
			commitEpoch = ev.head
		}
		sub.RevealEpoch = commitEpoch + hyper.CommitRevealInterval
		v.log.Info().Uint64("window", sub.Window).Uint64("race", sub.RaceID).Str("tx", sub.TxHash).Uint64("block", res.Block).Uint64("reveal_epoch", sub.RevealEpoch).Msg("weights committed")
		v.emit(Event{Kind: EventWeightsCommit, Block: res.Block, RaceID: sub.RaceID, Text: fmt.Sprintf("weights committed in block %d (tx %s), reveal at epoch %d", res.Block, short(sub.TxHash), sub.RevealEpoch)})
	} else {
		sub.Status = records.StatusSet
		v.log.Info().Uint64("window", sub.Window).Uint64("race", sub.RaceID).Str("tx", sub.TxHash).Uint64("block", res.Block).Interface("uids", sub.UIDs).Interface("values", sub.Values).Msg("weights set")
		v.emit(Event{Kind: EventWeightsSet, Block: res.Block, RaceID: sub.RaceID, Text: fmt.Sprintf("weights set in block %d (tx %s): %s", res.Block, short(sub.TxHash), describeWeights(sub))})
	}
	return v.putSubmission(sub)
}

// retryPending settles a submission whose transaction may or may not have
// been sent (the validator stopped, or the node failed mid-call), from the
// signed transaction stored before its broadcast.
func (v *Validator) retryPending(ctx context.Context, sub *records.Submission, hyper *chain.Hyperparams) error {
	if sub.RawTx == "" {
		// Stopped before a transaction was signed: nothing was broadcast.
		return v.send(ctx, sub, hyper)
	}
	op := "setWeights"
	if sub.Op == "commit" {
		op = "commitWeights"
	}
	raw, err := hex.DecodeString(sub.RawTx)
	var res *chain.TxResult
	if err == nil {
		res, err = v.opts.Chain.ResumeTx(ctx, op, raw)
	}
	var hexErr hex.InvalidByteError
	if errors.Is(err, chain.ErrTxUnusable) || errors.As(err, &hexErr) || errors.Is(err, hex.ErrLength) {
		// A damaged record: what it held can no longer be settled, and
		// retrying every block cannot change that.
		sub.Status, sub.Error, sub.RawTx = records.StatusFailed, "pending transaction: "+err.Error(), ""
		v.emit(Event{Kind: EventWeightsFailed, Block: sub.CreatedBlock, Text: "weights failed: " + sub.Error})
		return errors.Join(v.putSubmission(sub), fmt.Errorf("pending %s for window %d: %w", sub.Op, sub.Window, err))
	}
	if errors.Is(err, chain.ErrTxDropped) {
		// It can never land, so the same submission is sent afresh; a
		// commit's salt and hash are unchanged, and at most one of the
		// two transactions can have landed.
		v.log.Warn().Uint64("window", sub.Window).Str("tx", sub.TxHash).Msg("pending weights transaction was dropped; sending it afresh")
		sub.TxHash, sub.RawTx = "", ""
		return v.send(ctx, sub, hyper)
	}
	if err == nil {
		v.log.Info().Uint64("window", sub.Window).Str("tx", res.Hash.Hex()).Uint64("block", res.Block).Msg("pending weights transaction settled from the chain")
	}
	return v.record(ctx, sub, hyper, res, err)
}

// reveal reveals a committed submission.
func (v *Validator) reveal(ctx context.Context, sub *records.Submission, epochsFromChain bool) error {
	w := chain.Weights{Netuid: v.opts.Netuid, UIDs: sub.UIDs, Values: sub.Values, VersionKey: sub.VersionKey}
	res, err := v.opts.Chain.RevealWeights(ctx, v.opts.Signer, w, sub.Salt, chain.TxOptions{})
	if err != nil {
		var rej *chain.RejectedError
		if errors.As(err, &rej) && errors.Is(err, chain.ErrRevealTooEarly) {
			if epochsFromChain {
				// The epochs were read from the chain, so the chain is right
				// by the next head: try again then.
				return nil
			}
			// The legacy estimate from chain.tempo disagrees with the chain:
			// the next epoch is tried rather than giving up.
			sub.RevealEpoch++
			return v.putSubmission(sub)
		}
		if errors.As(err, &rej) && (errors.Is(err, chain.ErrNoCommit) || errors.Is(err, chain.ErrCommitMismatch)) {
			// Our commit is gone: either an earlier reveal landed and the
			// validator stopped before recording it, or the commit was
			// dropped. A reveal updates last_update, which tells them apart.
			if at, ok := v.revealedSince(ctx, sub.Block); ok {
				sub.Status, sub.RevealBlock = records.StatusRevealed, at
				sub.RevealTxHash = "unknown (confirmed by last_update)"
				v.log.Info().Uint64("window", sub.Window).Uint64("last_update", at).Msg("reveal had already landed")
				return v.putSubmission(sub)
			}
		}
		if errors.As(err, &rej) {
			v.m.submissions.WithLabelValues("reveal", "rejected").Inc()
			sub.Status, sub.Error = records.StatusFailed, "reveal: "+err.Error()
			v.emit(Event{Kind: EventWeightsFailed, Block: sub.Block, Text: "reveal refused: " + err.Error()})
			return errors.Join(v.putSubmission(sub), err)
		}
		v.m.submissions.WithLabelValues("reveal", "error").Inc()
		return fmt.Errorf("reveal (retried next block): %w", err)
	}
	v.m.submissions.WithLabelValues("reveal", "ok").Inc()
	sub.Status, sub.RevealTxHash, sub.RevealBlock = records.StatusRevealed, res.Hash.Hex(), res.Block
	v.log.Info().Uint64("window", sub.Window).Uint64("race", sub.RaceID).Str("tx", sub.RevealTxHash).Uint64("block", res.Block).Msg("weights revealed")
	v.emit(Event{Kind: EventWeightsReveal, Block: res.Block, RaceID: sub.RaceID, Text: fmt.Sprintf("weights revealed in block %d (tx %s): %s", res.Block, short(sub.RevealTxHash), describeWeights(sub))})
	return v.putSubmission(sub)
}

// revealedSince reports whether the chain's last_update for this validator
// moved past block, from a fresh read.
func (v *Validator) revealedSince(ctx context.Context, block uint64) (uint64, bool) {
	at, err := v.lastUpdateNow(ctx)
	return at, err == nil && at > block
}

// lastUpdateNow reads this validator's last_update from the chain now.
func (v *Validator) lastUpdateNow(ctx context.Context) (uint64, error) {
	_, _, self := v.snapshot()
	if self < 0 {
		return 0, errors.New("hotkey not registered")
	}
	meta, err := v.opts.Chain.Metagraph(ctx, v.opts.Netuid)
	if err != nil {
		return 0, err
	}
	n, ok := neuronByUID(meta, uint16(self))
	if !ok {
		return 0, fmt.Errorf("uid %d left the metagraph", self)
	}
	return n.LastUpdate, nil
}

func (v *Validator) putSubmission(s *records.Submission) error {
	return v.opts.Store.Update(func(txn *badger.Txn) error { return v.rec.PutSubmission(txn, s) })
}

func newSalt() []uint16 {
	var b [2 * saltLen]byte
	_, _ = rand.Read(b[:])
	out := make([]uint16, saltLen)
	for i := range out {
		out[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return out
}

func short(h string) string {
	if len(h) > 12 {
		return h[:10] + "…"
	}
	return h
}

// describeWeights renders the non-zero weights as "uid 3 100.0%", noting
// when no race has been decided yet.
func describeWeights(s *records.Submission) string {
	if s.RaceID == 0 {
		return describeValues(s) + " (no race decided yet: the burn uid gets it all)"
	}
	return describeValues(s) + fmt.Sprintf(" (from race %d)", s.RaceID)
}

func describeValues(s *records.Submission) string {
	total := 0
	for _, w := range s.Values {
		total += int(w)
	}
	if total == 0 {
		return "all zero"
	}
	out := ""
	for i, u := range s.UIDs {
		if s.Values[i] == 0 {
			continue
		}
		if out != "" {
			out += ", "
		}
		out += fmt.Sprintf("uid %d %.1f%%", u, 100*float64(s.Values[i])/float64(total))
	}
	return out
}

// hasCommitted reports a commit waiting for its reveal.
func hasCommitted(subs []records.Submission) bool {
	for i := range subs {
		if subs[i].Status == records.StatusCommitted {
			return true
		}
	}
	return false
}
